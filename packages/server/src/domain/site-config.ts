// A site's SDK config as the engine reads it. The production config is the site's base;
// another environment's config overrides it key by key.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { SdkConfig } from './sdk-config.ts';
import type { WeightOverrides } from './signals.ts';

/** The effective config of an environment: production's, overridden by the environment's own. */
export async function effectiveConfig(db: Kysely<Database>, siteId: string, environment: string): Promise<{ config: SdkConfig; updatedAt: number | null }> {
  const rows = await db.selectFrom('sdk_configs').select(['environment', 'config', 'updated_at'])
    .where('site_id', '=', siteId).where('environment', 'in', [environment, 'production']).execute();
  const base = rows.find((r) => r.environment === 'production');
  const own = environment === 'production' ? undefined : rows.find((r) => r.environment === environment);
  const config = { ...(base ? JSON.parse(base.config) : {}), ...(own ? JSON.parse(own.config) : {}) } as SdkConfig;
  const updatedAt = Math.max(base?.updated_at ?? 0, own?.updated_at ?? 0) || null;
  return { config, updatedAt };
}

/** Custom signal weights: the production config's, the site's own. */
export async function loadSignalWeights(db: Kysely<Database>, siteId: string): Promise<WeightOverrides> {
  return (await effectiveConfig(db, siteId, 'production')).config.signal_weights ?? {};
}
