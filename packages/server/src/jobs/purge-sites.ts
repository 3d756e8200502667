// A deleted site is hidden at once (sites.deleted_at); its data goes afterwards, here.
import { sql } from 'kysely';
import type { Store } from '../store/db.ts';
import { dropRollupRows } from '../store/element-rollup.ts';

// Tables holding a site's data, children before parents. Issue and alert children go with
// their parents through ON DELETE CASCADE, and so do a clip's signal rows (clip_signals).
const SITE_TABLES = [
  'clips', 'signals', 'events', 'sessions', 'score_history', 'page_scores', 'ux_issues', 'alerts', 'alert_rules',
  'deploys', 'annotations', 'webhook_deliveries', 'webhooks', 'integrations', 'sdk_configs', 'outbox',
  'site_score_history', 'delivery_attempts', 'funnels',
] as const;

// A site deletion starts a purge and the hourly maintenance runs one: in one process they take
// turns, since two purges of the same rows at once deadlock on PostgreSQL.
let previous: Promise<unknown> = Promise.resolve();

/** Deletes the data of deleted sites in bounded batches, so a huge site never holds one long lock. */
export function purgeDeletedSites(store: Pick<Store, 'db'>, batchSize = 5000): Promise<number> {
  const run = previous.then(() => purgeOnce(store, batchSize), () => purgeOnce(store, batchSize));
  previous = run.catch(() => undefined);
  return run;
}

async function purgeOnce(store: Pick<Store, 'db'>, batchSize: number): Promise<number> {
  const sites = await store.db.selectFrom('sites').select('id').where('deleted_at', 'is not', null).execute();
  let removed = 0;
  for (const { id } of sites) {
    // Rule state is keyed by rule, so it goes before the rules do.
    await store.db.deleteFrom('alert_rule_state').where('rule_id', 'in', store.db.selectFrom('alert_rules').select('id').where('site_id', '=', id)).execute();
    await store.db.deleteFrom('alert_cooldowns').where('rule_id', 'in', store.db.selectFrom('alert_rules').select('id').where('site_id', '=', id)).execute();
    for (const table of SITE_TABLES) {
      for (;;) {
        const batch = store.db.selectFrom(table).select('id').where('site_id', '=', id).limit(batchSize);
        const result = await store.db.deleteFrom(table).where('id', 'in', batch).executeTakeFirst();
        const count = Number(result.numDeletedRows);
        removed += count;
        if (count < batchSize) break;
      }
    }
    // The element rollup has no id column (its key is the bucket): batches by key.
    for (;;) {
      const count = await dropRollupRows(store.db, id, sql`true`, batchSize);
      removed += count;
      if (count < batchSize) break;
    }
    await store.db.deleteFrom('api_keys').where('site_id', '=', id).execute();
    // OAuth connections to the site, and every token and code of their grants.
    await store.db.deleteFrom('oauth_records').where('grant_id', 'in', store.db.selectFrom('oauth_grants').select('grant_id').where('site_id', '=', id)).execute();
    await store.db.deleteFrom('oauth_grants').where('site_id', '=', id).execute();
    await store.db.deleteFrom('pipeline_state').where('site_id', '=', id).execute();
    await store.db.deleteFrom('pipeline_claims').where('site_id', '=', id).execute();
    // The site's rows are gone, so are its counts (all zero by now: the triggers counted the deletes).
    await store.db.deleteFrom('row_counts').where('site_id', '=', id).execute();
  }
  return removed;
}
