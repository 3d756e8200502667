// Raw data (events, signals, sessions, and the issue evidence that names their sessions) is
// kept for the retention period, then deleted site by site in bounded batches, so no delete
// holds a long lock or a long transaction. Scores, history, issues, alerts and deploys are
// kept for the life of the site.
import type { Store } from '../store/db.ts';
import { DAY_MS } from '../domain/time.ts';

const TIME_COLUMN = { events: 'occurred_at', signals: 'occurred_at', sessions: 'last_seen_at' } as const;

export async function purgeExpiredRawData(store: Store, now: number, retentionDays: number, batchSize = 5000): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  const sites = await store.db.selectFrom('sites').select('id').execute();
  let removed = 0;
  for (const { id: siteId } of sites) {
    for (const [table, column] of Object.entries(TIME_COLUMN) as [keyof typeof TIME_COLUMN, string][]) {
      for (;;) {
        const expired = store.db.selectFrom(table).select('id')
          .where('site_id', '=', siteId).where(column as 'id', '<', cutoff as never).limit(batchSize);
        const result = await store.db.deleteFrom(table).where('id', 'in', expired).executeTakeFirst();
        const count = Number(result.numDeletedRows);
        removed += count;
        if (count < batchSize) break;
      }
    }
  }
  // Evidence rows name a session (its sid); they go with the raw data they point to.
  for (;;) {
    const expired = store.db.selectFrom('issue_evidence').select('id').where('occurred_at', '<', cutoff).limit(batchSize);
    const count = Number((await store.db.deleteFrom('issue_evidence').where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
    removed += count;
    if (count < batchSize) break;
  }
  return removed;
}
