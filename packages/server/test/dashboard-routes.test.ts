// The dashboard's routes: /app/ (entry page, revalidated every time) and its content-hashed
// assets (immutable), ETag and gzip like /sdk.js, a strict CSP on every response, browsers
// sent from / to /app/ while API clients keep the JSON 404, and the prebuilt dist/ used when
// esbuild is not installed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.ts';
import { ASSET_CACHE, DASHBOARD_CSP, ENTRY_CACHE } from '../src/http/routes/dashboard.ts';
import { loadDashboard } from '../src/features/dashboard/build.ts';

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="\/app\/assets\/([^"]+)"/g)].map((m) => m[1]);

describe('dashboard routes', () => {
  let h: Harness;
  beforeAll(async () => { h = await createHarness('sqlite'); });
  afterAll(async () => { await h.close(); });

  it('serves the entry page at /app/ and /app, revalidated on every load, with no inline script or style', async () => {
    for (const url of ['/app/', '/app']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe(ENTRY_CACHE);
      expect(res.headers.etag).toMatch(/^".+"$/);
      expect(res.body).toContain('<div id="app">');
      expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.body).not.toMatch(/<style|\sstyle=/);
      expect(assetsOf(res.body).map((a) => a.split('.').pop()).sort()).toEqual(['css', 'js', 'svg']);
    }
  });

  it('serves every asset the page names, content-hashed and immutable; an unknown one is a 404 envelope', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/app/' });
    for (const name of assetsOf(page.body)) {
      expect(name).toMatch(/^[a-z]+-[A-Za-z0-9_-]{8,}\.(js|css|svg)$/);
      const res = await h.app.inject({ method: 'GET', url: `/app/assets/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['cache-control']).toBe(ASSET_CACHE);
      expect(res.headers['content-type']).toMatch(name.endsWith('.js') ? /^text\/javascript/ : name.endsWith('.css') ? /^text\/css/ : /^image\/svg\+xml/);
      expect(res.body.length).toBeGreaterThan(100);
    }
    const missing = await h.app.inject({ method: 'GET', url: '/app/assets/main-0000000000.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ data: null, error: { code: 'not_found', status: 404 } });
  });

  it('answers 304 to a matching If-None-Match and gzips when asked', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/app/' });
    const again = await h.app.inject({ method: 'GET', url: '/app/', headers: { 'if-none-match': page.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const script = assetsOf(page.body).find((a) => a.endsWith('.js'))!;
    const plain = await h.app.inject({ method: 'GET', url: `/app/assets/${script}` });
    const zipped = await h.app.inject({ method: 'GET', url: `/app/assets/${script}`, headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    const asset304 = await h.app.inject({ method: 'GET', url: `/app/assets/${script}`, headers: { 'if-none-match': plain.headers.etag as string } });
    expect(asset304.statusCode).toBe(304);
  });

  it('puts the strict CSP and the other protective headers on every dashboard response, errors and 304s included', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/app/' });
    const responses = await Promise.all([
      h.app.inject({ method: 'GET', url: '/app/' }),
      h.app.inject({ method: 'HEAD', url: '/app/' }),
      h.app.inject({ method: 'GET', url: '/app/', headers: { 'if-none-match': page.headers.etag as string } }),
      ...assetsOf(page.body).map((a) => h.app.inject({ method: 'GET', url: `/app/assets/${a}` })),
      h.app.inject({ method: 'GET', url: '/app/assets/nothing.js' }),
      h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } }),
    ]);
    for (const [i, res] of responses.entries()) {
      expect(res.headers['content-security-policy'], `response ${i}`).toBe(DASHBOARD_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    const directives = Object.fromEntries(DASHBOARD_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'self'", 'script-src': "'self'", 'style-src': "'self'", 'font-src': "'self'", 'connect-src': "'self'",
      // A recording's images and video (clips.allow_media) are on the site's origin: https: only, no plain http:.
      'img-src': "'self' https: data:", 'media-src': "'self' https:",
      'object-src': "'none'", 'base-uri': "'none'", 'form-action': "'self'", 'frame-ancestors': "'none'",
    });
    expect(DASHBOARD_CSP).not.toMatch(/unsafe-inline|unsafe-eval|http:|blob:|\*/);
  });

  it('redirects a browser opening / to /app/, while API clients keep the JSON 404', async () => {
    const browser = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/app/');
    expect(browser.headers.vary).toBe('accept');
    const head = await h.app.inject({ method: 'HEAD', url: '/', headers: { accept: 'text/html' } });
    expect(head.statusCode).toBe(302);
    for (const headers of [{}, { accept: 'application/json' }, { accept: '*/*' }]) {
      const res = await h.app.inject({ method: 'GET', url: '/', headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ data: null, error: { code: 'not_found', message: 'No route GET /', status: 404 } });
      expect(res.headers['content-security-policy']).toBeUndefined();
    }
    const post = await h.app.inject({ method: 'POST', url: '/', headers: { accept: 'text/html' }, payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json().error.code).toBe('not_found');
  });

  it('is public and in the OpenAPI document', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/app/'].get.security).toEqual([]);
    expect(doc.paths['/app/assets/{file}'].get.security).toEqual([]);
  });
});

describe('dashboard without esbuild', () => {
  // A copy of the dashboard package whose build fails as it does when esbuild is not installed.
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-'));
    writeFileSync(join(dir, 'build.mjs'), "export async function buildDashboard() { throw new Error(\"Cannot find package 'esbuild'\"); }\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says why when there is no prebuilt dist/ either', async () => {
    await expect(loadDashboard(pathToFileURL(`${dir}/`))).rejects.toThrow(/esbuild/);
  });

  it('serves the prebuilt dist/ (what `npm run build` writes) when the build cannot run', async () => {
    const { buildDashboard } = await import(new URL('../../dashboard/build.mjs', import.meta.url).href) as typeof import('../../dashboard/build.mjs');
    const built = await buildDashboard();
    mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'index.html'), built.index);
    for (const a of built.assets) writeFileSync(join(dir, 'dist', 'assets', a.name), a.contents);
    const loaded = await loadDashboard(pathToFileURL(`${dir}/`));
    expect(loaded.index.body.toString()).toBe(built.index);
    expect([...loaded.assets.keys()].sort()).toEqual(built.assets.map((a) => a.name).sort());
    expect(loaded.assets.get(built.assets[0].name)!.body.equals(Buffer.from(built.assets[0].contents))).toBe(true);
  });
});
