// Integrations: Slack, PagerDuty, Linear and GitHub credentials per site, one per provider.
// The config is sealed at rest (AES-256-GCM); responses only ever show it masked.
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import type { Secrets } from '../../auth/secrets.ts';
import { checkTarget } from '../../delivery/targets.ts';
import type { AuthContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted, IsoTime, Uuid } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { firstFailure } from '../../ingest/schemas.ts';
import type { Store } from '../../store/db.ts';
import type { Database, IntegrationsTable } from '../../store/tables.ts';

export const PROVIDERS = ['slack', 'pagerduty', 'linear', 'github'] as const;
export type Provider = (typeof PROVIDERS)[number];

const Secret = Type.String({ minLength: 1, maxLength: 512 });
const CONFIGS: Record<Provider, TSchema> = {
  slack: Type.Union([
    Type.Object({ webhook_url: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false }),
    Type.Object({ bot_token: Secret, channel: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false }),
  ]),
  pagerduty: Type.Object({ routing_key: Secret }, { additionalProperties: false }),
  linear: Type.Object({ api_key: Secret, team_id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
  github: Type.Object({ token: Secret, repo: Type.String({ pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$', maxLength: 200 }) }, { additionalProperties: false }),
};
const CHECKS = Object.fromEntries(Object.entries(CONFIGS).map(([k, v]) => [k, TypeCompiler.Compile(v)])) as Record<Provider, ReturnType<typeof TypeCompiler.Compile>>;
/** Fields that are credentials: masked to their last 4 characters. */
const SECRET_FIELDS = new Set(['webhook_url', 'bot_token', 'routing_key', 'api_key', 'token']);

export const mask = (config: Record<string, string>) =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? `••••${v.slice(-4)}` : v]));

const IntegrationRecord = Type.Object({
  id: Uuid, site_id: Uuid, provider: Type.String(), config: Type.Record(Type.String(), Type.String({ description: 'credentials masked' })),
  created_at: IsoTime, updated_at: IsoTime,
});

const toRecord = (r: IntegrationsTable) => ({ id: r.id, site_id: r.site_id, provider: r.provider, config: JSON.parse(r.config_masked), created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

/** The decrypted config of a site's integration for a provider, or null. */
export async function integrationConfig(db: Kysely<Database>, secrets: Secrets, siteId: string, provider: Provider): Promise<Record<string, string> | null> {
  const row = await db.selectFrom('integrations').select('config_enc').where('site_id', '=', siteId).where('provider', '=', provider).executeTakeFirst();
  return row ? (JSON.parse(secrets.decrypt(row.config_enc)) as Record<string, string>) : null;
}

async function integrationInScope(store: Store, auth: AuthContext, id: string) {
  let query = store.db.selectFrom('integrations').innerJoin('sites', 'sites.id', 'integrations.site_id').selectAll('integrations')
    .where('integrations.id', '=', id.toLowerCase()).where('sites.org_id', '=', auth.org.id).where('sites.deleted_at', 'is', null);
  if (auth.site) query = query.where('integrations.site_id', '=', auth.site.id);
  const row = await query.executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Integration not found');
  return row;
}

export async function integrationRoutes(app: App) {
  const { store, clock, secrets, targets } = app.services;
  const read = { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } as const;
  const write = { ...read, role: 'admin' } as const;

  app.get('/manage/integrations', {
    config: { access: read },
    schema: {
      tags: ['integrations'], summary: 'The site\'s integrations, credentials masked',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(Type.Object({ integrations: Type.Array(IntegrationRecord) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const rows = await store.db.selectFrom('integrations').selectAll().where('site_id', '=', site.id).orderBy('provider').execute();
    return ok({ integrations: rows.map(toRecord) });
  });

  app.post('/manage/integrations', {
    config: { access: write, docs: { errors: ['conflict'] } },
    schema: {
      tags: ['integrations'], summary: 'Connect Slack, PagerDuty, Linear or GitHub (one per provider per site)',
      body: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        provider: Type.Union(PROVIDERS.map((p) => Type.Literal(p))),
        config: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown()),
      }, { additionalProperties: false }),
      response: { 201: Envelope(IntegrationRecord) },
    },
  }, async (request, reply) => {
    const auth = request.auth!;
    const site = await resolveSite({ db: store.db, auth: auth }, request.body.site_id);
    const provider = request.body.provider as Provider;
    const config = request.body.config;
    if (!CHECKS[provider].Check(config)) {
      const failure = firstFailure(CHECKS[provider], config);
      throw invalidInput(failure.field === 'body' ? 'config' : `config.${failure.field}`, `${failure.reason} (see docs/webhooks.md for each provider's config)`);
    }
    const clean = config as Record<string, string>;
    if (clean.webhook_url) await checkTarget(clean.webhook_url, targets, 'config.webhook_url');
    const exists = await store.db.selectFrom('integrations').select('id').where('site_id', '=', site.id).where('provider', '=', provider).executeTakeFirst();
    if (exists) throw new AppError('conflict', `This site already has a ${provider} integration; delete it first`);
    const now = clock.now();
    const row: IntegrationsTable = {
      id: uuidv7(), site_id: site.id, provider, config_enc: secrets.encrypt(JSON.stringify(clean)),
      config_masked: JSON.stringify(mask(clean)), created_at: now, updated_at: now,
    };
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('integrations').values(row).execute();
      await recordAudit(trx, auth, { action: 'integration.created', targetType: 'integration', targetId: row.id, siteId: site.id, details: { provider } }, now);
    });
    reply.code(201);
    return ok(toRecord(row));
  });

  app.delete('/manage/integrations/:id', {
    config: { access: write },
    schema: { tags: ['integrations'], summary: 'Disconnect an integration', params: Type.Object({ id: Type.String() }), response: { 200: Envelope(Deleted) } },
  }, async (request) => {
    const auth = request.auth!;
    const row = await integrationInScope(store, auth, request.params.id);
    const now = clock.now();
    await store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('integrations').where('id', '=', row.id).execute();
      await recordAudit(trx, auth, { action: 'integration.deleted', targetType: 'integration', targetId: row.id, siteId: row.site_id, details: { provider: row.provider } }, now);
    });
    return ok({ id: row.id, deleted: true });
  });
}
