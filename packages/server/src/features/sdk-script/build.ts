// Where the SDK script comes from: built from packages/sdk's sources with esbuild (the same
// build as `npm run build -w @mallard/sdk`), so `npm start` on a fresh clone serves it with no
// build step; where esbuild is not installed (a production install without dev dependencies),
// the prebuilt packages/sdk/dist/mallard.js.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

export interface SdkScript { version: string; code: string; gzipped: Buffer; etag: string }

const SDK_DIR = new URL('../../../../sdk/', import.meta.url);

async function buildOrRead(): Promise<{ version: string; code: string }> {
  const sdk = await import(new URL('build.mjs', SDK_DIR).href) as typeof import('../../../../sdk/build.mjs');
  try {
    return { version: sdk.version, code: await sdk.buildScriptTag() };
  } catch (buildError) {
    try {
      return { version: sdk.version, code: await readFile(new URL('dist/mallard.js', SDK_DIR), 'utf8') };
    } catch {
      throw buildError;
    }
  }
}

export async function loadSdkScript(): Promise<SdkScript> {
  const { version, code } = await buildOrRead();
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
  return { version, code, gzipped: gzipSync(code), etag };
}
