// The providers a site can connect (one integration per provider per site), the config each
// takes, and the one read of a stored config: sealed at rest (AES-256-GCM), opened here for
// the delivery worker (Slack, PagerDuty) and for ticket pushes (Linear, GitHub).
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Kysely } from 'kysely';
import type { Secrets } from '../auth/secrets.ts';
import type { Database } from '../store/tables.ts';

export const PROVIDERS = ['slack', 'pagerduty', 'linear', 'github'] as const;
export type Provider = (typeof PROVIDERS)[number];

const Secret = Type.String({ minLength: 1, maxLength: 512 });
export const PROVIDER_CONFIGS = {
  slack: Type.Union([
    Type.Object({ webhook_url: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false }),
    Type.Object({ bot_token: Secret, channel: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false }),
  ]),
  pagerduty: Type.Object({ routing_key: Secret }, { additionalProperties: false }),
  linear: Type.Object({ api_key: Secret, team_id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
  github: Type.Object({ token: Secret, repo: Type.String({ pattern: '^(?!\\.\\.?/)[A-Za-z0-9_.-]+/(?!\\.\\.?$)[A-Za-z0-9_.-]+$', maxLength: 200, description: 'owner/name; neither part . or .. (it becomes a path on the GitHub API)' }) }, { additionalProperties: false }),
};
export type ProviderConfig<P extends Provider> = Static<(typeof PROVIDER_CONFIGS)[P]>;

/** The decrypted config of a site's integration for a provider, or null when it has none. */
export async function integrationConfig<P extends Provider>(db: Kysely<Database>, secrets: Secrets, siteId: string, provider: P): Promise<ProviderConfig<P> | null> {
  const row = await db.selectFrom('integrations').select('config_enc').where('site_id', '=', siteId).where('provider', '=', provider).executeTakeFirst();
  if (!row) return null;
  const config: unknown = JSON.parse(secrets.decrypt(row.config_enc));
  // Stored only after the same check; failing it means the row was written some other way.
  if (!Value.Check(PROVIDER_CONFIGS[provider], config)) throw new Error(`the stored ${provider} integration does not match its schema`);
  return config as ProviderConfig<P>;
}
