// POST /v1/ingest/clips: a friction clip or page snapshot from the SDK's clips chunk, with the
// ingest rules: the key (body or Bearer), the batch's site, the per-key ingest rate limit, the
// site's allowed origins and the bot filter, in ingest's order (ingest/steps.ts), then the
// upload's own checks (features/clips/upload.ts). Its own scope: its own body parsers and limits, open CORS.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Static } from '@sinclair/typebox';
import type { App } from '../app-types.ts';
import { openCors } from '../cors.ts';
import type { RouteDocs } from '../openapi.ts';
import { Envelope, ok } from '../envelope.ts';
import { setRateLimitHeaders } from '../limits.ts';
import { nestedDeeperThan } from '../request-data.ts';
import { acceptIngestBodies } from '../ingest-bodies.ts';
import { AppError } from '../../domain/errors.ts';
import { DEVELOPMENT_ENVIRONMENTS, isBotUserAgent } from '../../domain/normalize.ts';
import { loadIngestSettings } from '../../domain/site-settings.ts';
import { deviceClass } from '../../ingest/session.ts';
import { authenticate, checkOrigin, rateLimit, resolveSite, type Ok, type Refusal } from '../../ingest/steps.ts';
import { CLIP_BODY_LIMIT, CLIP_MAX_DEPTH, CLIP_WIRE_LIMIT, ClipUpload, ClipUploadResult } from '../../features/clips/schemas.ts';
import { checkUpload, clipPage, findReferences, prepareClip, storeClip, storedClip } from '../../features/clips/upload.ts';

const PATH = '/ingest/clips';

/**
 * A clip sent as its page went away (keepalive) travels beside the batch with its signals
 * (sendBeacon) and may reach the server first: a session or signal not found is looked up once
 * more after this long before the 404.
 */
export const REFERENCES_RETRY_MS = 500;

type UploadResult = Static<typeof ClipUploadResult>;

// The handler checks the body itself (the key before the body), so it is documented only.
const CLIP_DOCS: RouteDocs = { body: ClipUpload, consumes: ['application/json', 'text/plain'] };

const tooLarge = () => new AppError('payload_too_large', `A clip is at most ${CLIP_WIRE_LIMIT} bytes as sent and ${CLIP_BODY_LIMIT} bytes decompressed`);

export async function clipIngestRoutes(app: App) {
  const { store, clock, limiter, secrets, config } = app.services;

  // As ingest (http/ingest-bodies.ts), with the clip's limits: 1 MiB as sent, 8 MiB decompressed,
  // and deeper nesting (rrweb snapshots nest two levels per DOM level).
  acceptIngestBodies(app, {
    bodyLimit: CLIP_BODY_LIMIT,
    tooDeep: (text) => (nestedDeeperThan(text, CLIP_MAX_DEPTH)
      ? new AppError('invalid_input', `The body nests more than ${CLIP_MAX_DEPTH} levels deep`, { field: 'body', reason: `nested more than ${CLIP_MAX_DEPTH} levels deep` })
      : null),
    wireLimit: { bytes: CLIP_WIRE_LIMIT, tooLarge },
  });

  openCors(app, PATH, 'POST');

  app.post(PATH, {
    bodyLimit: CLIP_BODY_LIMIT,
    config: {
      access: { surface: 'ingest' },
      docs: CLIP_DOCS,
    },
    schema: {
      tags: ['ingest'],
      summary: 'Send a friction clip or a page snapshot (publishable key)',
      description: 'Body JSON as application/json or text/plain, normally gzip-encoded: at most 1 MiB as sent, 8 MiB decompressed (413 payload_too_large). '
        + 'A session or signal id the key\'s site does not hold is 404 not_found with details.field (sid or signal_ids), nothing stored. '
        + 'stored:false is a polite no: duplicate (this id was stored before), budget (the site\'s daily byte budget is spent), element_cap (5 clips per element a UTC day), snapshot_exists (one per page and device class a day). '
        + 'Bot user agents get stored:false with no reason.',
      response: { 202: Envelope(ClipUploadResult) },
    },
  }, async (request, reply): Promise<{ data: UploadResult; error: null }> => {
    const now = clock.now();
    const sender = { body: request.body, authorization: request.headers.authorization, userAgent: request.headers['user-agent'], ip: request.ip, now };
    const auth = unwrap(await authenticate({ store, secrets, limiter }, sender));
    request.auth = auth;
    const upload = checkUpload(request.body, now);
    if (!auth.scopes.includes('ingest:write')) throw new AppError('missing_scope', 'This key cannot ingest (needs ingest:write)', { required: ['ingest:write'] });
    const site = unwrap(await resolveSite(store.db, auth, { batch: upload }));
    const limited = await rateLimit(limiter, config.rateLimits.ingest, auth, now);
    setRateLimitHeaders(reply, limited.hit, now);
    unwrap(limited);
    unwrap(checkOrigin(site, request.headers.origin));
    const environment = upload.env ?? 'production';
    const userAgent = upload.meta?.ua ?? request.headers['user-agent'] ?? null;
    reply.code(202);
    if (!DEVELOPMENT_ENVIRONMENTS.has(environment) && isBotUserAgent(userAgent)) return ok({ id: upload.id, stored: false, bytes: 0 });

    // Reads of committed rows (the SDK sends its events before the clip) go to the read pool,
    // so they never queue behind ingest's writes on the main connection; only the storing
    // transaction (which checks for a duplicate again) takes it.
    const { pageGroups } = await loadIngestSettings(store.readDb, site.id, environment);
    const page = clipPage(upload.page, pageGroups);
    const refs = await findReferences(store.readDb, site.id, upload).catch(async (err: unknown) => {
      if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
      await sleep(REFERENCES_RETRY_MS);
      return findReferences(store.readDb, site.id, upload);
    });
    // A retry of a stored upload is answered before its events are compressed again.
    const earlier = await storedClip(store.readDb, site.id, upload.id);
    if (earlier) return ok({ id: upload.id, stored: false, reason: 'duplicate', clip_id: earlier.id, bytes: earlier.bytes });
    const clip = await prepareClip(upload, { siteId: site.id, page, device: deviceClass(userAgent), refs });
    const outcome = await storeClip(store.db, clip, now);
    if (outcome.stored) return ok({ id: upload.id, stored: true, clip_id: outcome.clipId, bytes: clip.body.length });
    return ok({ id: upload.id, stored: false, reason: outcome.reason, ...(outcome.clipId ? { clip_id: outcome.clipId } : {}), bytes: clip.body.length });
  });
}

function unwrap<T>(result: Ok<T> | Refusal): T {
  if (result.kind === 'error') throw result.error;
  return result.value;
}
