// How a clip's events are kept: their JSON, brotli-compressed (about a fifth smaller than gzip
// for rrweb's repetitive JSON) on libuv's thread pool, so a large clip never holds the event
// loop that ordinary ingest runs on. Quality 5: most of brotli's gain at a few ms per 100 KB.
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

export const CLIP_ENCODING = 'br';

export async function encodeEvents(events: readonly unknown[]): Promise<Buffer> {
  const json = Buffer.from(JSON.stringify(events));
  return compress(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
}

export async function decodeEvents(body: Buffer | Uint8Array, encoding: string): Promise<unknown[]> {
  if (encoding !== CLIP_ENCODING) throw new Error(`unknown clip encoding ${encoding}`);
  return JSON.parse((await decompress(body)).toString('utf8')) as unknown[];
}
