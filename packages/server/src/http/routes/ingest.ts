// POST /v1/ingest: what the SDK sends. A bad batch (key, body, limits) is refused whole with
// the usual envelope; a bad event is rejected alone with its index. 202 only after commit.
// The handler runs the steps of ingest/steps.ts in order and turns their results into the answer.
import { Type } from '@sinclair/typebox';
import type { App } from '../app-types.ts';
import { openCors } from '../cors.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../envelope.ts';
import type { RouteDocs } from '../openapi.ts';
import { setRateLimitHeaders } from '../limits.ts';
import { depthError } from '../request-data.ts';
import { acceptIngestBodies } from '../ingest-bodies.ts';
import { BatchDocument, INGEST_BODY_LIMIT } from '../../ingest/schemas.ts';
import { IngestWriter } from '../../ingest/store-batch.ts';
import {
  authenticate, authorize, checkOrigin, dropBots, loadSettings, prepare, rateLimit, resolveSite, storeBatch, validateBatch,
  type Ok, type Refusal,
} from '../../ingest/steps.ts';

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

export async function ingestRoutes(app: App) {
  const { store, clock, limiter, secrets, config, metrics } = app.services;
  // One writer per app: concurrent batches of this route share its group commits.
  const ingest = new IngestWriter(store);

  // sendBeacon can only send text/plain without a preflight; both carry JSON. Strings here
  // become PostgreSQL text, so NUL characters are replaced.
  acceptIngestBodies(app, { bodyLimit: INGEST_BODY_LIMIT, tooDeep: depthError, replaceNul: true });

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
