// The parts of a site's SDK config the engine reads: custom signal weights. The production
// config is the site's own; other environments only tune the SDK.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { WeightOverrides } from './weights.ts';

export async function loadSignalWeights(db: Kysely<Database>, siteId: string): Promise<WeightOverrides> {
  const row = await db.selectFrom('sdk_configs').select('config').where('site_id', '=', siteId).where('environment', '=', 'production').executeTakeFirst();
  const weights = row ? (JSON.parse(row.config) as { signal_weights?: Record<string, number> }).signal_weights : undefined;
  return weights ?? {};
}
