// Where the SDK script comes from: built from packages/sdk's sources with esbuild (the same
// build as `npm run build -w @mallard/sdk`), so `npm start` on a fresh clone serves it with no
// build step; where esbuild is not installed (a production install without dev dependencies),
// the prebuilt packages/sdk/dist/mallard.js. The clips chunk (issue 28) the same way: the SDK's
// `buildClips()` where its build has one, else the prebuilt dist/clips.js; with neither, there
// is no chunk to serve (null), which the route answers 404. Each is kept in memory, gzipped
// once, with an ETag from its content (delivery/static-files.ts, as the dashboard is).
import { readFile } from 'node:fs/promises';
import { buildOrPrebuilt, encodings } from '../../delivery/static-files.ts';

export interface SdkScript { version: string; code: string; gzipped: Buffer; etag: string }

const SDK_DIR = new URL('../../../../sdk/', import.meta.url);

async function buildOrRead(): Promise<{ version: string; code: string }> {
  const sdk = await import(new URL('build.mjs', SDK_DIR).href) as typeof import('../../../../sdk/build.mjs');
  const code = await buildOrPrebuilt(() => sdk.buildScriptTag(), () => readFile(new URL('dist/mallard.js', SDK_DIR), 'utf8'));
  return { version: sdk.version, code };
}

const scriptOf = (version: string, code: string): SdkScript => ({ version, code, ...encodings(code) });

export async function loadSdkScript(): Promise<SdkScript> {
  const { version, code } = await buildOrRead();
  return scriptOf(version, code);
}

/** Where the prebuilt clips chunk is looked for (tests point it elsewhere). */
export const CLIPS_DIST = new URL('dist/clips.js', SDK_DIR);

/** The clips chunk, built or prebuilt; null when this SDK has none. */
export async function loadClipsScript(dist: URL = CLIPS_DIST): Promise<SdkScript | null> {
  const sdk = await import(new URL('build.mjs', SDK_DIR).href) as { version: string; buildClips?: () => Promise<string> };
  if (typeof sdk.buildClips === 'function') {
    try {
      return scriptOf(sdk.version, await sdk.buildClips());
    } catch {
      // No esbuild (a production install): the prebuilt file below.
    }
  }
  try {
    return scriptOf(sdk.version, await readFile(dist, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
