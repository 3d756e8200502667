// How the two ingest routes (POST /v1/ingest and POST /v1/ingest/clips) read their bodies, each
// in its own Fastify scope: JSON sent as application/json or text/plain (what sendBeacon can send
// without a preflight), optionally gzip-encoded. The routes differ only in their limits.
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { App } from './app-types.ts';
import { AppError } from '../domain/errors.ts';

/** JSON.parse reviver: NUL characters in strings and keys become U+FFFD. */
function withoutNul(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD');
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.includes('\u0000'))) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\u0000', '\uFFFD'), v]));
  }
  return value;
}

export interface IngestBodyRules {
  /** Bytes once decompressed (Fastify's bodyLimit). */
  bodyLimit: number;
  /** The refusal of a body nested too deep, checked before parsing (every later walk recurses). */
  tooDeep(text: string): AppError | null;
  /** PostgreSQL text cannot hold a NUL: strings that will be stored as text keep its place as U+FFFD. */
  replaceNul?: boolean;
  /** Bytes as sent (before gunzip), refused with `tooLarge`; without it only bodyLimit counts. */
  wireLimit?: { bytes: number; tooLarge(): AppError };
}

export function acceptIngestBodies(app: App, rules: IngestBodyRules) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: rules.bodyLimit }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    const tooDeep = rules.tooDeep(text);
    if (tooDeep) return done(tooDeep, undefined);
    try {
      // In JSON a NUL can only come escaped, so most bodies skip the reviver.
      done(null, rules.replaceNul && text.includes('\\u0000') ? JSON.parse(text, withoutNul) : JSON.parse(text));
    } catch {
      done(new AppError('invalid_json', 'The body is not valid JSON'), undefined);
    }
  });

  const { wireLimit } = rules;
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (wireLimit && Number(request.headers['content-length'] ?? 0) > wireLimit.bytes) throw wireLimit.tooLarge();
    const encoding = request.headers['content-encoding']?.toLowerCase();
    const gzip = encoding === 'gzip';
    if (encoding && encoding !== 'identity' && !gzip) throw new AppError('unsupported_media_type', 'Content-Encoding must be gzip or identity');
    // Nothing to count or decompress: the body as it comes.
    if (!gzip && !wireLimit) return payload;
    const out = (gzip ? createGunzip() : new PassThrough()) as (PassThrough | ReturnType<typeof createGunzip>) & { receivedEncodedLength?: number };
    let received = 0;
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      out.receivedEncodedLength = received;
      if (wireLimit && received > wireLimit.bytes) out.destroy(wireLimit.tooLarge());
    });
    payload.on('error', (err) => out.destroy(err));
    return payload.pipe(out) as unknown as Readable;
  });
}
