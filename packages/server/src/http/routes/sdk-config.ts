// GET /v1/sdk-config?key=svc_pub_...: the browser SDK's config for a publishable key, public
// and cacheable, with open CORS in its own scope. The service is features/sdk-config's.
import { Type } from '@sinclair/typebox';
import type { App } from '../app-types.ts';
import { authenticate } from '../../domain/authenticate.ts';
import { withFailedAuthLockout } from '../../domain/rate-limits.ts';
import { openCors } from '../cors.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../envelope.ts';
import { getPublicConfig } from '../../features/sdk-config/service.ts';
import { CLIP_CONFIG_LIST_MAX, CLIPS_PER_ELEMENT_PER_DAY } from '../../domain/clips.ts';
import { CLIP_STATE_CACHE_MS } from '../../features/clips/usage.ts';
import { ReadCache } from '../../store/read-cache.ts';
import { DEVICE_TYPES } from '../../domain/read-window.ts';
import { OneOf } from '../../domain/schema-parts.ts';

const PublicConfig = Type.Object({
  site_id: Type.String(), environment: Type.String(), sample_rate: Type.Number(),
  signals: Type.Record(Type.String(), Type.Unknown(), { description: 'Per signal type, its settings for the SDK' }), ignore_selectors: Type.Array(Type.String()),
  page_groups: Type.Array(Type.Object({ match: Type.String(), page: Type.String() })),
  privacy: Type.Object({ respect_dnt: Type.Boolean(), require_consent: Type.Boolean(), cookieless: Type.Boolean() }),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  clips: Type.Union([
    Type.Object({ enabled: Type.Literal(false) }, { description: 'Clips are off for this environment: the SDK loads no clips chunk' }),
    Type.Object({
      enabled: Type.Literal(true),
      unmask: Type.Array(Type.String(), { description: 'Selectors recorded unmasked' }),
      allow_media: Type.Boolean(),
      accepting: Type.Boolean({ description: 'false once the site\'s daily (UTC) byte budget is spent: send nothing more today' }),
      full_elements: Type.Array(Type.String(), { description: `Element selectors that already have their ${CLIPS_PER_ELEMENT_PER_DAY} clips today (at most ${CLIP_CONFIG_LIST_MAX})` }),
      snapshots_taken: Type.Array(Type.String(), { description: `"<device>:<page>" pairs that already have today's snapshot (at most ${CLIP_CONFIG_LIST_MAX})` }),
      device: OneOf(DEVICE_TYPES, 'The device class this request\'s User-Agent is filed under (uploads from it are filed the same)'),
    }),
  ], { description: 'Friction clips and page snapshots (issue 28)' }),
});

/** GET /v1/sdk-config?key=svc_pub_...: public and cacheable, for the browser SDK. */
export async function publicSdkConfigRoutes(app: App) {
  const { store, clock, secrets, limiter, config: settings } = app.services;
  openCors(app, '/sdk-config', 'GET');
  // The clip state every page load asks for (features/clips/usage.ts), kept per site a few
  // seconds longer than the read routes' answers, by the same rules (store/read-cache.ts): a
  // write this process commits to a table it read forgets it at once. Other processes' writes
  // (a retention run in a separate worker) show within CLIP_STATE_CACHE_MS.
  const clipStateCache = new ReadCache({
    changes: store.changes, maxAgeMs: settings.readCacheMs > 0 ? CLIP_STATE_CACHE_MS : 0, dataVersion: () => null, clock, maxEntries: 10_000,
  });

  app.get('/sdk-config', {
    // Public, but the `key` it takes is checked like a credential: documented as one, and left
    // optional here so that a request without it is 401 missing_auth like any missing credential.
    config: { access: { surface: 'public' }, docs: { keyInQuery: true, errors: ['missing_auth', 'invalid_key', 'expired_key', 'invalid_jwt', 'missing_scope', 'rate_limited'] } },
    schema: {
      tags: ['sdk-config'], summary: 'Browser-safe SDK config for a publishable key',
      querystring: Type.Object({ key: Type.Optional(Type.String({ maxLength: 128 })), env: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(PublicConfig) },
    },
  }, async (request, reply) => {
    const { key } = request.query;
    if (!key) throw new AppError('missing_auth', 'Pass the publishable key as ?key=');
    // Guessing keys here counts towards the same per-address lockout as everywhere else.
    const auth = await withFailedAuthLockout(limiter, request.ip, clock.now(), () => authenticate(store, secrets, key, clock.now()));
    // Only a publishable key belongs in a URL: a secret one would end up in caches and logs.
    if (auth.kind === 'key' && auth.keyType !== 'publishable') throw new AppError('missing_scope', 'Use the site\'s publishable key (svc_pub_); a secret key never goes in a URL', { required: ['ingest:write'] });
    const config = await getPublicConfig({ ctx: { auth, db: store.db, now: clock.now(), readCache: clipStateCache }, input: { ...request.query, userAgent: request.headers['user-agent'] ?? null } });
    reply.header('cache-control', 'public, max-age=60');
    // The clips part names the device class of this User-Agent: a shared cache keeps one per agent.
    if (config.clips.enabled) reply.header('vary', 'user-agent');
    return ok(config);
  });
}
