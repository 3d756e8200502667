// Integrations: Slack, PagerDuty, Linear and GitHub credentials per site, one per provider.
// The config is checked against its provider's schema, sealed at rest (AES-256-GCM) and only
// ever shown masked; a Slack webhook URL must be a public target.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { v7 as uuidv7 } from 'uuid';
import { recordAudit } from '../../audit/record.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { PROVIDER_CONFIGS, PROVIDERS, type Provider } from '../../domain/integrations.ts';
import { resolveSite, rowInTenant } from '../../domain/tenancy.ts';
import { checkTarget, type TargetPolicy } from '../../delivery/targets.ts';
import { checkFailure } from '../../domain/validation-error.ts';
import type { IntegrationsTable } from '../../store/tables.ts';
import { toIntegrationRecord } from './integration-list.ts';
import type { ConnectIntegrationBody } from './schemas.ts';

const SCHEMAS: Record<Provider, TSchema> = PROVIDER_CONFIGS;
const CHECKS = Object.fromEntries(PROVIDERS.map((p) => [p, TypeCompiler.Compile(SCHEMAS[p])])) as Record<Provider, TypeCheck<TSchema>>;
/** Fields that are credentials: masked to their last 4 characters. */
const SECRET_FIELDS = new Set(['webhook_url', 'bot_token', 'routing_key', 'api_key', 'token']);

export const mask = (config: Record<string, string>) =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? `••••${v.slice(-4)}` : v]));

export async function connectIntegration({ ctx, input, secrets, policy }: { ctx: ServiceContext; input: ConnectIntegrationBody; secrets: Secrets; policy: TargetPolicy }) {
  const site = await resolveSite(ctx, input.site_id);
  const { provider, config } = input;
  if (!CHECKS[provider].Check(config)) throw checkFailure(CHECKS[provider], config, 'config', " (see docs/webhooks.md for each provider's config)");
  const clean = config as Record<string, string>; // every provider's config is an object of strings, checked above
  if (clean.webhook_url) await checkTarget(clean.webhook_url, policy, 'config.webhook_url');
  const exists = await ctx.db.selectFrom('integrations').select('id').where('site_id', '=', site.id).where('provider', '=', provider).executeTakeFirst();
  if (exists) throw new AppError('conflict', `This site already has a ${provider} integration; delete it first`);
  const { now } = ctx;
  const row: IntegrationsTable = {
    id: uuidv7(), site_id: site.id, provider, config_enc: secrets.encrypt(JSON.stringify(clean)),
    config_masked: JSON.stringify(mask(clean)), created_at: now, updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('integrations').values(row).execute();
    await recordAudit(trx, ctx, { action: 'integration.created', targetType: 'integration', targetId: row.id, siteId: site.id, details: { provider } });
  });
  return toIntegrationRecord(row);
}

export async function disconnectIntegration({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  const row = await rowInTenant(ctx, 'integrations', input.id, 'Integration');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('integrations').where('id', '=', row.id).execute();
    await recordAudit(trx, ctx, { action: 'integration.deleted', targetType: 'integration', targetId: row.id, siteId: row.site_id, details: { provider: row.provider } });
  });
  return { id: row.id, deleted: true };
}
