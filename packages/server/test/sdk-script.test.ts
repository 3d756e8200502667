// /sdk.js and /sdk/<version>.js: the script-tag build, with its caching, served to any site.
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useHarness } from './helpers/harness.ts';
import { IMMUTABLE_CACHE, SHORT_CACHE } from '../src/http/routes/sdk-script.ts';

const VERSION = JSON.parse(readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8')).version as string;

describe('SDK script routes', () => {
  const h = useHarness('sqlite');

  it('serves the current build at /sdk.js with a short cache', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/sdk.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe(SHORT_CACHE);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.etag).toMatch(/^".+"$/);
    // The IIFE sets window.Mallard and starts itself from the tag's data-key.
    expect(res.body).toContain('Mallard');
    expect(res.body).toContain('data-key');
    expect(res.body).toContain('data-endpoint');
    expect(res.body).toContain(`"${VERSION}"`);
  });

  it('serves the same build at /sdk/<version>.js, immutable; other versions are 404', async () => {
    const latest = await h.app.inject({ method: 'GET', url: '/sdk.js' });
    const pinned = await h.app.inject({ method: 'GET', url: `/sdk/${VERSION}.js` });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(pinned.body).toBe(latest.body);
    const other = await h.app.inject({ method: 'GET', url: '/sdk/0.0.1.js' });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('not_found');
  });

  it('answers 304 to a matching If-None-Match and gzips when asked', async () => {
    const first = await h.app.inject({ method: 'GET', url: '/sdk.js' });
    const again = await h.app.inject({ method: 'GET', url: '/sdk.js', headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const gz = await h.app.inject({ method: 'GET', url: '/sdk.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(first.body);
    expect(gz.rawPayload.length).toBeLessThanOrEqual(12 * 1024); // the SDK's budget with every detector (issue 15)
  });

  it('needs no credential and sends no cookie', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/sdk.js', headers: { authorization: 'Bearer nonsense' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
