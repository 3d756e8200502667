// POST /v1/ingest: what the SDK sends. A bad batch (key, body, limits) is refused whole with
// the usual envelope; a bad event is rejected alone with its index. 202 only after commit.
// The handler runs the steps of steps.ts in order and turns their results into the answer.
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../http/app-types.ts';
import { openCors } from '../http/cors.ts';
import { AppError } from '../domain/errors.ts';
import { Envelope, ok } from '../http/envelope.ts';
import type { RouteDocs } from '../http/openapi.ts';
import { setRateLimitHeaders } from '../http/limits.ts';
import { depthError } from '../http/request-data.ts';
import { BatchDocument, INGEST_BODY_LIMIT } from './schemas.ts';
import {
  authenticate, authorize, checkOrigin, dropBots, loadSettings, prepare, rateLimit, resolveSite, storeBatch, validateBatch,
  type Ok, type Refusal,
} from './steps.ts';

const IngestResult = Type.Object({
  accepted: Type.Integer({ description: 'Valid events: stored now, or already stored by an earlier try of the same batch' }),
  rejected: Type.Integer(),
  rejections: Type.Array(Type.Object({ index: Type.Integer(), code: Type.String(), field: Type.Optional(Type.String()) })),
  duplicates: Type.Integer({ description: 'Accepted events that were already stored' }),
  dropped: Type.Integer({ description: 'Events dropped because the batch came from a bot or headless browser' }),
});

const PATH = '/ingest';

// The handler checks the batch itself (key first, then the batch, then each event alone), so
// the batch schema is documented only.
const INGEST_DOCS: RouteDocs = { body: BatchDocument, consumes: ['application/json', 'text/plain'] };

/** JSON.parse reviver: NUL characters in strings and keys become U+FFFD. */
function withoutNul(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD');
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.includes('\u0000'))) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\u0000', '\uFFFD'), v]));
  }
  return value;
}

export async function ingestRoutes(app: App) {
  const { store, clock, limiter, secrets, config, metrics, ingest } = app.services;

  // sendBeacon can only send text/plain without a preflight; both carry JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    // Before parsing: the NUL reviver below recurses, and so does every later walk of the batch.
    const tooDeep = depthError(text);
    if (tooDeep) return done(tooDeep, undefined);
    try {
      // PostgreSQL text cannot hold a NUL character: visitors' text keeps its place, marked
      // with U+FFFD. In JSON a NUL can only come escaped, so most batches skip the reviver.
      done(null, text.includes('\\u0000') ? JSON.parse(text, withoutNul) : JSON.parse(text));
    } catch {
      done(new AppError('invalid_json', 'The body is not valid JSON'), undefined);
    }
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding']?.toLowerCase();
    if (!encoding || encoding === 'identity') return payload;
    if (encoding !== 'gzip') throw new AppError('unsupported_media_type', 'Content-Encoding must be gzip or identity');
    const gunzip = createGunzip() as ReturnType<typeof createGunzip> & { receivedEncodedLength?: number };
    let received = 0;
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      gunzip.receivedEncodedLength = received;
    });
    payload.on('error', (err) => gunzip.destroy(err));
    return payload.pipe(gunzip) as unknown as Readable;
  });

  openCors(app, PATH, 'POST');

  app.post(PATH, {
    bodyLimit: INGEST_BODY_LIMIT,
    config: {
      access: { surface: 'ingest' },
      docs: INGEST_DOCS,
    },
    schema: {
      tags: ['ingest'],
      summary: 'Send a batch of SDK events (publishable key, or a secret key with ingest:write)',
      description: 'Body is JSON sent as application/json or text/plain, optionally gzip-encoded, at most 1 MiB and 250 events.',
      response: { 202: Envelope(IngestResult) },
    },
  }, async (request, reply) => {
    const now = clock.now();
    const sender = { body: request.body, authorization: request.headers.authorization, userAgent: request.headers['user-agent'], ip: request.ip, now };
    const auth = unwrap(await authenticate({ store, secrets, limiter }, sender));
    // From here on an error envelope knows the org (duck facts).
    request.auth = auth;
    const incoming = unwrap(validateBatch(sender));
    unwrap(authorize(auth, incoming));
    const site = unwrap(await resolveSite(store.db, auth, incoming));
    const limited = await rateLimit(limiter, config.rateLimits.ingest, auth, now);
    setRateLimitHeaders(reply, limited.hit, now);
    unwrap(limited);
    unwrap(checkOrigin(site, request.headers.origin));
    const bots = dropBots(incoming);
    if (bots.kind === 'drop') {
      metrics.countIngest(bots.reason, bots.events);
      reply.code(202);
      return ok({ accepted: 0, rejected: 0, rejections: [], duplicates: 0, dropped: bots.events });
    }
    const siteSettings = unwrap(await loadSettings(store.db, site, incoming));
    const prepared = unwrap(prepare(incoming, site, siteSettings, now));
    const { counts, stored } = unwrap(await storeBatch(ingest, prepared));
    metrics.countIngest('stored', stored.inserted);
    metrics.countIngest('duplicate', stored.duplicates);
    metrics.countIngest('rejected', counts.rejected);
    reply.code(202);
    return ok(counts);
  });
}

/** A refusal becomes the error envelope of the whole batch (through the app's error handler). */
function unwrap<T>(result: Ok<T> | Refusal): T {
  if (result.kind === 'error') throw result.error;
  return result.value;
}
