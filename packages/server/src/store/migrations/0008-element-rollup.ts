// The signals on page elements rolled up per hour and per user at ingest, so the "top elements"
// of a window read whole hours from here and only the partial hours at its edges from signals
// (store/element-rollup.ts keeps it equal to the raw rows). One row per user (the visitor id, or
// the session id without one) per element, signal type and hour: the count of distinct users
// needs the users. The key leads with (site, page, hour) for the window reads; the second index
// serves retention, which drops a site's old hours. The signals already stored are rolled up
// here, in the migration's transaction, so the rollup equals them from the first read (a
// process of an older build still writing signals would leave them out: upgrade every process).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('element_rollup')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('element', 'text', (c) => c.notNull())
    .addColumn('signal_type', 'text', (c) => c.notNull())
    .addColumn('user_key', 'text', (c) => c.notNull())
    .addColumn('signals', 'bigint', (c) => c.notNull())
    .addColumn('label', 'text')
    .addPrimaryKeyConstraint('element_rollup_pk', ['site_id', 'page', 'hour', 'element', 'signal_type', 'user_key'])
    .execute();
  await db.schema.createIndex('element_rollup_site_hour').on('element_rollup').columns(['site_id', 'hour']).execute();
  // The hour as store/element-rollup.ts computes it (a literal: it appears in the GROUP BY too).
  const hour = sql`occurred_at - occurred_at % 3600000`;
  await sql`insert into element_rollup (site_id, page, hour, element, signal_type, user_key, signals, label)
    select site_id, page, ${hour}, element, signal_type, coalesce(visitor_id, sid), count(*), max(label)
    from signals where element <> ''
    group by site_id, page, ${hour}, element, signal_type, coalesce(visitor_id, sid)`.execute(db);
}
