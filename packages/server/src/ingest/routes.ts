// POST /v1/ingest: what the SDK sends. A bad batch (key, body, limits) is refused whole with
// the usual envelope; a bad event is rejected alone with its index. 202 only after commit.
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../http/app-types.ts';
import { authenticate, bearerToken } from '../http/access.ts';
import { type AuthContext } from '../domain/context.ts';
import { openCors } from '../http/cors.ts';
import { AppError } from '../domain/errors.ts';
import { Envelope, ok } from '../http/envelope.ts';
import type { RouteDocs } from '../http/openapi.ts';
import { failedAuthBlocked, MINUTE, rateLimited, recordFailedAuth, setRateLimitHeaders } from '../http/limits.ts';
import { siteInScope } from '../domain/tenancy.ts';
import { DEVELOPMENT_ENVIRONMENTS, isBotUserAgent } from '../domain/normalize.ts';
import { prepareEvents } from './prepare.ts';
import { BatchDocument, checkBatch, firstFailure, INGEST_BODY_LIMIT, type Batch } from './schemas.ts';
import { loadIngestSettings } from '../domain/site-settings.ts';

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
  const { store, clock, limiter, secrets, config, metrics, ingest } = app.services;

  // sendBeacon can only send text/plain without a preflight; both carry JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
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
    const body = request.body as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new AppError('invalid_input', 'The body must be a JSON object', { field: 'body', reason: 'must be object' });
    }
    const token = (body as { key?: unknown }).key;
    const auth = await authenticateIngest(app, request, typeof token === 'string' ? token : undefined, now);
    if (!checkBatch.Check(body)) {
      const { field, reason } = firstFailure(checkBatch, body);
      throw new AppError('invalid_input', `${field}: ${reason}`, { field, reason });
    }
    const batch = body as Batch;

    if (!auth.scopes.includes('ingest:write')) throw new AppError('missing_scope', 'This key cannot ingest (needs ingest:write)', { required: ['ingest:write'] });
    if (batch.import && auth.keyType !== 'secret') {
      throw new AppError('missing_scope', 'Imports need a secret key with ingest:write', { required: ['ingest:write'] });
    }
    const site = await ingestSite(app, auth, batch);

    // Ingest is limited per key: imports count against the key that sends them.
    const hit = await limiter.hit(`ingest:key:${auth.keyId}`, config.rateLimits.ingest, MINUTE, now);
    setRateLimitHeaders(reply, hit, now);
    if (!hit.allowed) throw rateLimited(hit, 'this key');

    const origin = request.headers.origin;
    if (origin && site.allowedOrigins.length > 0 && !site.allowedOrigins.includes(origin)) {
      throw new AppError('forbidden', 'This origin may not send events for the site');
    }

    const environment = batch.env ?? 'production';
    const userAgent = batch.meta?.ua ?? request.headers['user-agent'] ?? null;
    if (!DEVELOPMENT_ENVIRONMENTS.has(environment) && isBotUserAgent(userAgent)) {
      metrics.countIngest('bot', batch.events.length);
      reply.code(202);
      return ok({ accepted: 0, rejected: 0, rejections: [], duplicates: 0, dropped: batch.events.length });
    }

    const settings = await loadIngestSettings(store.db, site.id, environment);
    const { events, rejections } = prepareEvents(batch, { now, import: batch.import === true, pageGroups: settings.pageGroups });
    const meta = {
      siteId: site.id,
      sid: batch.sid.toLowerCase(),
      visitorId: batch.vid?.toLowerCase() ?? null,
      environment,
      userAgent,
      viewportWidth: batch.meta?.viewport_w ?? null,
      appVersion: batch.meta?.app_version ?? null,
      conversionEvents: settings.conversionEvents,
    };
    const stored = await ingest.write({ meta, events, now });

    metrics.countIngest('stored', stored.inserted);
    metrics.countIngest('duplicate', stored.duplicates);
    metrics.countIngest('rejected', rejections.length);
    // Events repeated inside one batch are accepted once and stored once.
    const accepted = batch.events.length - rejections.length;
    reply.code(202);
    return ok({ accepted, rejected: rejections.length, rejections, duplicates: accepted - stored.inserted, dropped: 0 });
  });

  async function authenticateIngest(instance: App, request: Parameters<typeof bearerToken>[0], bodyKey: string | undefined, now: number): Promise<AuthContext> {
    const token = request.headers.authorization ? bearerToken(request) : bodyKey;
    if (!token) throw new AppError('missing_auth', 'Send the publishable key as "key" in the batch or as a Bearer token');
    if (await failedAuthBlocked(limiter, request.ip, now)) {
      throw new AppError('rate_limited', 'Too many failed authentication attempts', { reset_at: new Date(Math.ceil((now + 1) / MINUTE) * MINUTE).toISOString() });
    }
    try {
      const auth = await authenticate(instance.services.store, secrets, token, now);
      if (auth.kind !== 'key') throw new AppError('invalid_key', 'Ingest takes an API key, not a user token');
      request.auth = auth;
      return auth;
    } catch (err) {
      if (err instanceof AppError && err.status === 401) await recordFailedAuth(limiter, request.ip, now);
      throw err;
    }
  }
}

/** The site a batch is for: the key's own, or for an org-scoped secret key the batch's site_id. */
async function ingestSite(app: App, auth: AuthContext, batch: Batch) {
  const { store } = app.services;
  let siteId: string;
  if (auth.site && !batch.site_id) siteId = auth.site.id;
  else if (batch.site_id) siteId = (await siteInScope({ db: store.db, auth: auth }, batch.site_id)).id;
  else throw new AppError('missing_site_id', 'An org-scoped key must name the site with site_id');
  const row = await store.db.selectFrom('sites').select(['id', 'allowed_origins'])
    .where('id', '=', siteId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Site not found');
  return { id: row.id, allowedOrigins: JSON.parse(row.allowed_origins) as string[] };
}
