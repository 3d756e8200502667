// Raw data (events, signals, sessions, the issue evidence that names their sessions, and the
// element rollup's hours, which name users) is kept for the retention period, then deleted
// site by site in bounded batches, so no delete holds a long lock or a long transaction.
// Scores, history, issues, alerts and deploys are kept for the life of the site. A site may keep
// its raw data for fewer days than the instance (sites.retention_days), never more: each site's
// cutoff is its own. Issue evidence goes by the instance's period, and by its site's where that
// is shorter. Friction clips and page snapshots go by the site's clip retention
// (sites.clip_retention_days, default 30), never later than its raw data; their signal rows go
// with them (ON DELETE CASCADE).
import type { Store } from '../store/db.ts';
import { DAY_MS } from '../domain/time.ts';
import { dropRollupHours, hourOf, withdrawSignals } from '../store/element-rollup.ts';
import { effectiveRetentionDays } from '../domain/retention.ts';
import { effectiveClipRetentionDays } from '../domain/clips.ts';

const TIME_COLUMN = { events: 'occurred_at', signals: 'occurred_at', sessions: 'last_seen_at' } as const;

export async function purgeExpiredRawData(store: Store, now: number, retentionDays: number, batchSize = 5000): Promise<number> {
  const instanceCutoff = now - retentionDays * DAY_MS;
  const sites = await store.db.selectFrom('sites').select(['id', 'retention_days', 'clip_retention_days']).execute();
  let removed = 0;
  for (const { id: siteId, retention_days: siteDays, clip_retention_days: clipDays } of sites) {
    const cutoff = now - effectiveRetentionDays(siteDays, retentionDays) * DAY_MS;
    const clipCutoff = now - effectiveClipRetentionDays(clipDays, siteDays, retentionDays) * DAY_MS;
    for (;;) {
      const expired = store.db.selectFrom('clips').select('id').where('site_id', '=', siteId).where('created_at', '<', clipCutoff).limit(batchSize);
      const count = Number((await store.db.deleteFrom('clips').where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
      removed += count;
      if (count < batchSize) break;
    }
    // The element rollup's buckets are hours: hours that end by the cutoff go whole (rollup and
    // signals), and the signals of the hour holding the cutoff are withdrawn from the rollup as
    // they go, so the rollup still equals the signals that remain (store/element-rollup.ts).
    const cutoffHour = hourOf(cutoff);
    for (;;) {
      const ids = (await store.db.selectFrom('signals').select('id').where('site_id', '=', siteId)
        .where('occurred_at', '>=', cutoffHour).where('occurred_at', '<', cutoff).limit(batchSize).execute()).map((r) => r.id);
      if (ids.length > 0) removed += await store.db.transaction().execute((trx) => withdrawSignals(trx, siteId, 'id', ids));
      if (ids.length < batchSize) break;
    }
    for (const [table, column] of Object.entries(TIME_COLUMN) as [keyof typeof TIME_COLUMN, string][]) {
      const before = table === 'signals' ? cutoffHour : cutoff;
      for (;;) {
        const expired = store.db.selectFrom(table).select('id')
          .where('site_id', '=', siteId).where(column as 'id', '<', before as never).limit(batchSize);
        const result = await store.db.deleteFrom(table).where('id', 'in', expired).executeTakeFirst();
        const count = Number(result.numDeletedRows);
        removed += count;
        if (count < batchSize) break;
      }
    }
    // Rollup rows are not raw rows: they are not counted in what this returns.
    while (await dropRollupHours(store.db, siteId, cutoffHour, batchSize) === batchSize);
    // A session kept past the cutoff (last seen after it) whose first events went: its path
    // (store/session-path.ts) would still hold them, so it is cleared and readers use the events
    // that remain. Only the sessions open across the cutoff start before it (the rest went above).
    await store.db.updateTable('sessions').set({ path: null })
      .where('site_id', '=', siteId).where('first_seen_at', '<', cutoff).where('path', 'is not', null).execute();
    // Evidence rows name a session (its sid); they go with the raw data they point to.
    if (cutoff > instanceCutoff) {
      for (;;) {
        const expired = store.db.selectFrom('issue_evidence').select('id').where('occurred_at', '<', cutoff)
          .where('issue_id', 'in', store.db.selectFrom('ux_issues').select('id').where('site_id', '=', siteId)).limit(batchSize);
        const count = Number((await store.db.deleteFrom('issue_evidence').where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
        removed += count;
        if (count < batchSize) break;
      }
    }
  }
  // Every site's evidence past the instance's period, in one pass.
  for (;;) {
    const expired = store.db.selectFrom('issue_evidence').select('id').where('occurred_at', '<', instanceCutoff).limit(batchSize);
    const count = Number((await store.db.deleteFrom('issue_evidence').where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
    removed += count;
    if (count < batchSize) break;
  }
  return removed;
}
