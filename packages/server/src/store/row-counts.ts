// Per-site row counts of the tables /query/raw serves and of clips (migration 0020), kept by triggers (migration 0010): a
// count is the sum of the (site, table) rows of row_counts, one per shard. On SQLite there is
// one shard; on PostgreSQL each writing connection adds to a shard of its own (its backend
// pid), and foldRowCounts, run by the maintenance job, folds the shards of connections into
// shard 0 so their number stays small.
//
// One exception, on SQLite only: no trigger counts inserted events and signals (a row trigger
// doubled the cost of each such insert), so whatever inserts them there adds its rows with
// addInsertedRows, in its transaction. Ingest's storage step is the only such writer in the
// server; the read bench's dataset sink, which loads rows in bulk, counts them after.
import { sql, type Kysely } from 'kysely';
import type { Database } from './tables.ts';

const COUNTED = ['events', 'signals', 'sessions', 'page_scores', 'score_history', 'ux_issues', 'deploys', 'alerts', 'clips'] as const;
export type CountedTable = (typeof COUNTED)[number];

/** The tables counted (migration 0010 made their triggers). */
export const COUNTED_TABLES: ReadonlySet<string> = new Set(COUNTED);

/** The number of the site's rows in the table. */
export async function rowCount(db: Kysely<Database>, siteId: string, table: CountedTable): Promise<number> {
  const row = await db.selectFrom('row_counts').select((eb) => eb.fn.sum<number | string | null>('row_count').as('n'))
    .where('site_id', '=', siteId).where('table_name', '=', table).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** SQLite: adds the rows a transaction inserted into events or signals to their sites' counts. */
export async function addInsertedRows(trx: Kysely<Database>, table: 'events' | 'signals', rows: readonly { site_id: string }[]): Promise<void> {
  const bySite = new Map<string, number>();
  for (const row of rows) bySite.set(row.site_id, (bySite.get(row.site_id) ?? 0) + 1);
  for (const [siteId, n] of bySite) {
    await trx.insertInto('row_counts').values({ site_id: siteId, table_name: table, shard: 0, row_count: n })
      .onConflict((oc) => oc.columns(['site_id', 'table_name', 'shard']).doUpdateSet((eb) => ({ row_count: eb('row_counts.row_count', '+', eb.ref('excluded.row_count')) })))
      .execute();
  }
}

/** An arbitrary key for the advisory lock that keeps two folds from running at once. */
const FOLD_LOCK = 7_310_010;

/**
 * PostgreSQL: moves every shard's count into shard 0 and deletes the shard rows, skipping rows a
 * transaction in flight holds (it is still adding to them; the next fold takes them), so it
 * never waits for a writer; a writer that meets a row being folded waits for the fold's commit
 * and then adds to a new row. Returns how many rows were folded. SQLite has nothing to fold.
 */
export async function foldRowCounts(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${FOLD_LOCK}) as locked`.execute(trx);
    if (!rows[0]?.locked) return 0;
    const folded = await sql<{ n: number }>`with gone as (
        delete from row_counts where shard <> 0 and (site_id, table_name, shard) in
          (select site_id, table_name, shard from row_counts where shard <> 0 for update skip locked)
        returning site_id, table_name, row_count),
      summed as (
        insert into row_counts (site_id, table_name, shard, row_count)
          select site_id, table_name, 0, sum(row_count) from gone group by site_id, table_name order by site_id, table_name
          on conflict (site_id, table_name, shard) do update set row_count = row_counts.row_count + excluded.row_count
          returning 1)
      select (select count(*) from gone) as n`.execute(trx);
    return Number(folded.rows[0]?.n ?? 0);
  });
}
