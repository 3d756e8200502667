// The steps of POST /v1/ingest, in the order they run. Each returns a result: ok with its
// value, a refusal carrying the error the whole batch gets, or (bots only) a drop with its
// reason. The route runs them in turn and translates each result into the response; it
// holds no rule of its own.
import type { Kysely } from 'kysely';
import type { Secrets } from '../auth/secrets.ts';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/tables.ts';
import type { AuthContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import { authenticate as authenticateToken, bearerOf } from '../domain/authenticate.ts';
import { rateLimited, withFailedAuthLockout } from '../domain/rate-limits.ts';
import type { Hit, RateLimiter } from '../store/rate-limit.ts';
import { siteInScope } from '../domain/tenancy.ts';
import { DEVELOPMENT_ENVIRONMENTS, isBotUserAgent } from '../domain/normalize.ts';
import { loadIngestSettings, type IngestSettings } from '../domain/site-settings.ts';
import { MINUTE_MS } from '../domain/time.ts';
import { prepareEvents, type Rejection } from './prepare.ts';
import { checkFailure } from '../domain/validation-error.ts';
import { checkBatch, type Batch } from './schemas.ts';
import type { IngestWriter, PendingBatch, StoredBatch } from './store-batch.ts';

export interface Ok<T> { kind: 'ok'; value: T }
export interface Refusal { kind: 'error'; error: AppError }
export interface Drop { kind: 'drop'; reason: 'bot'; events: number }

const ok = <T>(value: T): Ok<T> => ({ kind: 'ok', value });
const refuse = (error: AppError): Refusal => ({ kind: 'error', error });

/** The shared rules (tenancy, authentication) throw; a step hands their errors back as results. */
async function attempt<T>(work: () => Promise<T>): Promise<Ok<T> | Refusal> {
  try {
    return ok(await work());
  } catch (err) {
    if (err instanceof AppError) return refuse(err);
    throw err;
  }
}

export interface Sender { body: unknown; authorization: string | undefined; userAgent: string | undefined; ip: string; now: number }

/**
 * Who sends the batch: the publishable key as `key` in the body, or a Bearer token (a secret
 * key for imports). The app's failed-authentication lockout applies; a user token is refused.
 */
export async function authenticate(deps: { store: Store; secrets: Secrets; limiter: RateLimiter }, sender: Sender): Promise<Ok<AuthContext> | Refusal> {
  const { body, authorization, ip, now } = sender;
  // The key may be in the body, so the body must be an object before anything else.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse(new AppError('invalid_input', 'The body must be a JSON object', { field: 'body', reason: 'must be object' }));
  }
  const bodyKey = (body as { key?: unknown }).key;
  return attempt(async () => {
    const token = authorization ? bearerOf(authorization) : typeof bodyKey === 'string' ? bodyKey : undefined;
    // No credential at all is not a failed attempt: it does not count towards the lockout.
    if (!token) throw new AppError('missing_auth', 'Send the publishable key as "key" in the batch or as a Bearer token');
    return withFailedAuthLockout(deps.limiter, ip, now, async () => {
      const auth = await authenticateToken(deps.store, deps.secrets, token, now);
      if (auth.kind !== 'key') throw new AppError('invalid_key', 'Ingest takes an API key, not a user token');
      return auth;
    });
  });
}

/** A batch that passed the wire format, with what the later steps read from it. */
export interface IncomingBatch { batch: Batch; environment: string; userAgent: string | null }

/** The batch as a whole against the wire format (each event is checked alone in `prepare`). */
export function validateBatch(sender: Sender): Ok<IncomingBatch> | Refusal {
  if (!checkBatch.Check(sender.body)) {
    return refuse(checkFailure(checkBatch, sender.body));
  }
  const batch = sender.body;
  return ok({ batch, environment: batch.env ?? 'production', userAgent: batch.meta?.ua ?? sender.userAgent ?? null });
}

/** The key may ingest (ingest:write), and only a secret key may import. */
export function authorize(auth: AuthContext, { batch }: IncomingBatch): Ok<void> | Refusal {
  if (!auth.scopes.includes('ingest:write')) return refuse(new AppError('missing_scope', 'This key cannot ingest (needs ingest:write)', { required: ['ingest:write'] }));
  if (batch.import && auth.keyType !== 'secret') {
    return refuse(new AppError('missing_scope', 'Imports need a secret key with ingest:write', { required: ['ingest:write'] }));
  }
  return ok(undefined);
}

export interface IngestSite { id: string; allowedOrigins: string[] }

/** The site a batch is for: the key's own, or for an org-scoped secret key the batch's site_id. */
export function resolveSite(db: Kysely<Database>, auth: AuthContext, { batch }: { batch: { site_id?: string } }): Promise<Ok<IngestSite> | Refusal> {
  return attempt(async () => {
    let siteId: string;
    if (auth.site && !batch.site_id) siteId = auth.site.id;
    else if (batch.site_id) siteId = (await siteInScope({ db, auth }, batch.site_id)).id;
    else throw new AppError('missing_site_id', 'An org-scoped key must name the site with site_id');
    const row = await db.selectFrom('sites').select(['id', 'allowed_origins'])
      .where('id', '=', siteId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw new AppError('not_found', 'Site not found');
    return { id: row.id, allowedOrigins: JSON.parse(row.allowed_origins) as string[] };
  });
}

/** Ingest is limited per key (imports count against the key that sends them); the hit is always returned for the headers. */
export async function rateLimit(limiter: RateLimiter, perMinute: number, auth: AuthContext, now: number): Promise<(Ok<Hit> | Refusal) & { hit: Hit }> {
  const hit = await limiter.hit(`ingest:key:${auth.keyId}`, perMinute, MINUTE_MS, now);
  return hit.allowed ? { ...ok(hit), hit } : { ...refuse(rateLimited(hit, 'this key')), hit };
}

/** A site with allowed origins takes browser batches from those origins only. */
export function checkOrigin(site: IngestSite, origin: string | undefined): Ok<void> | Refusal {
  if (origin && site.allowedOrigins.length > 0 && !site.allowedOrigins.includes(origin)) {
    return refuse(new AppError('forbidden', 'This origin may not send events for the site'));
  }
  return ok(undefined);
}

/** Batches from bots and headless browsers are acknowledged and dropped whole, except in development environments. */
export function dropBots({ batch, environment, userAgent }: IncomingBatch): Ok<void> | Drop {
  if (!DEVELOPMENT_ENVIRONMENTS.has(environment) && isBotUserAgent(userAgent)) return { kind: 'drop', reason: 'bot', events: batch.events.length };
  return ok(undefined);
}

/** The site's page groups and conversion events for the batch's environment. */
export async function loadSettings(db: Kysely<Database>, site: IngestSite, { environment }: IncomingBatch): Promise<Ok<IngestSettings>> {
  return ok(await loadIngestSettings(db, site.id, environment));
}

export interface PreparedBatch { pending: PendingBatch; rejections: Rejection[]; sent: number }

/** Each event checked and normalized alone; the bad ones are rejected by index. */
export function prepare(incoming: IncomingBatch, site: IngestSite, siteSettings: IngestSettings, now: number): Ok<PreparedBatch> {
  const { batch, environment, userAgent } = incoming;
  const { events, rejections } = prepareEvents(batch, { now, import: batch.import === true, pageGroups: siteSettings.pageGroups });
  const meta = {
    siteId: site.id,
    sid: batch.sid.toLowerCase(),
    visitorId: batch.vid?.toLowerCase() ?? null,
    environment,
    userAgent,
    viewportWidth: batch.meta?.viewport_w ?? null,
    appVersion: batch.meta?.app_version ?? null,
    conversionEvents: siteSettings.conversionEvents,
    signalWeight: siteSettings.signalWeight,
  };
  return ok({ pending: { meta, events, now }, rejections, sent: batch.events.length });
}

export interface IngestCounts { accepted: number; rejected: number; rejections: Rejection[]; duplicates: number; dropped: number }

/** Stored (with concurrent batches, in one transaction); the answer comes only after commit. */
export async function storeBatch(writer: IngestWriter, prepared: PreparedBatch): Promise<Ok<{ counts: IngestCounts; stored: StoredBatch }>> {
  const stored = await writer.write(prepared.pending);
  const { rejections } = prepared;
  // Events repeated inside one batch are accepted once and stored once.
  const accepted = prepared.sent - rejections.length;
  return ok({ counts: { accepted, rejected: rejections.length, rejections, duplicates: accepted - stored.inserted, dropped: 0 }, stored });
}
