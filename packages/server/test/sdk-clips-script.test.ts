// /sdk/clips-<version>.js: the SDK's clips chunk (issue 28), served like /sdk/<version>.js
// (immutable, ETag, gzip, any origin), and 404 not_found when the SDK build has no chunk. The
// chunk's loader is replaced here, so both cases are tested whatever packages/sdk holds.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { SdkScript } from '../src/features/sdk-script/build.ts';
import { IMMUTABLE_CACHE } from '../src/http/routes/sdk-script.ts';
import { useHarness } from './helpers/harness.ts';

const chunk = vi.hoisted(() => ({ current: null as SdkScript | null, loads: 0 }));
vi.mock('../src/features/sdk-script/build.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../src/features/sdk-script/build.ts')>()),
  loadClipsScript: async () => { chunk.loads++; return chunk.current; },
}));

function script(version: string, code: string): SdkScript {
  return { version, code, gzipped: gzipSync(code), etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"` };
}

describe('the clips chunk when the SDK build has none', () => {
  const h = useHarness('sqlite');

  it('is 404 not_found in the envelope, and the core script is still served', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/sdk/clips-0.1.0.js' });
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json()).toEqual({ data: null, error: expect.objectContaining({ code: 'not_found', status: 404 }) });
    expect(chunk.loads).toBe(1);
    expect((await h.app.inject({ method: 'GET', url: '/sdk.js' })).statusCode).toBe(200);
  });
});

describe('the clips chunk when the SDK build has one', () => {
  const h = useHarness('sqlite');
  const code = '(()=>{window.MallardClips={start(){}}})();';
  beforeAll(() => { chunk.current = script('9.8.7', code); });

  it('is served at /sdk/clips-<version>.js, immutable, to any origin; other versions are 404', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/sdk/clips-9.8.7.js', headers: { origin: 'https://shop.example' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe(code);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.etag).toBe(chunk.current!.etag);
    const other = await h.app.inject({ method: 'GET', url: '/sdk/clips-1.0.0.js' });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('not_found');
  });

  it('answers 304 to its ETag and gzips when asked', async () => {
    const again = await h.app.inject({ method: 'GET', url: '/sdk/clips-9.8.7.js', headers: { 'if-none-match': chunk.current!.etag } });
    expect(again.statusCode).toBe(304);
    const gz = await h.app.inject({ method: 'GET', url: '/sdk/clips-9.8.7.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(code);
  });
});
