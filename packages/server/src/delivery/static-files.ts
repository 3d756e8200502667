// The files the server serves from memory (the SDK script, its clips chunk, the dashboard):
// each built from its package's sources when it can be, else read prebuilt from its dist/,
// and gzipped once, with a strong ETag from its content.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** A file's gzip encoding and ETag (the first 27 characters of its SHA-256 in base64url). */
export function encodings(contents: Uint8Array | string): { gzipped: Buffer; etag: string } {
  const body = typeof contents === 'string' ? contents : Buffer.from(contents);
  return { gzipped: gzipSync(body), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/**
 * `build()`, or where it fails (no esbuild in a production install), `prebuilt()`; when both
 * fail, the build's error, which says more than a missing dist/.
 */
export async function buildOrPrebuilt<T>(build: () => Promise<T>, prebuilt: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (buildError) {
    try {
      return await prebuilt();
    } catch {
      throw buildError;
    }
  }
}
