// delivery/static-files.ts, which the SDK script and the dashboard are served through: the build
// or else the prebuilt file (the build's error when neither), and one gzip and ETag per content.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildOrPrebuilt, encodings } from '../src/delivery/static-files.ts';

describe('buildOrPrebuilt', () => {
  it('takes the build when it works, without reading the prebuilt file', async () => {
    let read = 0;
    expect(await buildOrPrebuilt(async () => 'built', async () => { read++; return 'prebuilt'; })).toBe('built');
    expect(read).toBe(0);
  });

  it('reads the prebuilt file when the build fails', async () => {
    expect(await buildOrPrebuilt(async () => { throw new Error('no esbuild'); }, async () => 'prebuilt')).toBe('prebuilt');
  });

  it("throws the build's error when neither works", async () => {
    await expect(buildOrPrebuilt(async () => { throw new Error('no esbuild'); }, async () => { throw new Error('ENOENT'); }))
      .rejects.toThrow('no esbuild');
  });
});

describe('encodings', () => {
  it('gives the same ETag for the same bytes as text or buffer, a different one for other bytes, and gzip that inflates back', () => {
    const text = 'console.log("ü")';
    const a = encodings(text);
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(encodings(Buffer.from(text)).etag).toBe(a.etag);
    expect(encodings(`${text};`).etag).not.toBe(a.etag);
    expect(gunzipSync(a.gzipped).toString('utf8')).toBe(text);
  });
});
