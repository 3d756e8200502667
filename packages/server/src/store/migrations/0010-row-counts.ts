// Per-site row counts of the tables /query/raw serves (issue 17): its `total` read count(*) of
// the site's rows, which grows with history (322 ms for 10M signals on SQLite, 793 ms on
// PostgreSQL). Triggers keep row_counts equal to the rows, so every writer (ingest, the
// pipeline, retention, erasure, purges, anything later) is counted without knowing of it, in
// its own transaction. store/row-counts.ts reads and folds them.
//
// SQLite: one row per (site, table), shard 0, kept by row triggers (one writer at a time),
// except the inserts of events and signals: a row trigger doubles the cost of each of those
// inserts (3.4 against 6.7 µs a row, measured), which took 10 % off ingest, so ingest's storage
// step counts what it inserted itself, once per site and table of a group (store/row-counts.ts).
// PostgreSQL: statement triggers add each statement's rows per site to a row of the writing
// connection's own (shard = its backend pid), so concurrent writers never wait for one another
// on a count row, nor deadlock whatever order they write tables in; the maintenance job folds
// rows into shard 0 (foldRowCounts). A count is the sum of its rows.
//
// The rows already stored are counted here, in the migration's transaction: on PostgreSQL
// CREATE TRIGGER locks each table against writes until it commits, on SQLite the migration
// holds the write lock, so no row is missed or counted twice.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The tables /query/raw serves. A table counted later needs a migration of its own. */
const COUNTED_TABLES = ['events', 'signals', 'sessions', 'page_scores', 'score_history', 'ux_issues', 'deploys', 'alerts'];
/** SQLite: the tables whose inserts ingest counts itself. */
const INGEST_COUNTED = ['events', 'signals'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('row_counts')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('shard', 'bigint', (c) => c.notNull())
    .addColumn('row_count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('row_counts_pk', ['site_id', 'table_name', 'shard'])
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // `set search_path from current`: the functions find row_counts in the schema they were made in.
    for (const [name, sign] of [['mallard_count_inserted', '+'], ['mallard_count_deleted', '-']] as const) {
      await sql.raw(`create function ${name}() returns trigger language plpgsql set search_path from current as $$
        begin
          insert into row_counts (site_id, table_name, shard, row_count)
            select site_id, tg_table_name, pg_backend_pid(), ${sign}count(*) from changed_rows group by site_id order by site_id
            on conflict (site_id, table_name, shard) do update set row_count = row_counts.row_count + excluded.row_count;
          return null;
        end $$`).execute(db);
    }
    for (const table of COUNTED_TABLES) {
      await sql.raw(`create trigger ${table}_count_inserted after insert on ${table} referencing new table as changed_rows
        for each statement execute function mallard_count_inserted()`).execute(db);
      await sql.raw(`create trigger ${table}_count_deleted after delete on ${table} referencing old table as changed_rows
        for each statement execute function mallard_count_deleted()`).execute(db);
    }
  } else {
    for (const table of COUNTED_TABLES) {
      for (const [name, event, row, step] of [['inserted', 'insert', 'new', '+ 1'], ['deleted', 'delete', 'old', '- 1']] as const) {
        if (event === 'insert' && INGEST_COUNTED.includes(table)) continue;
        await sql.raw(`create trigger ${table}_count_${name} after ${event} on ${table} begin
          insert into row_counts (site_id, table_name, shard, row_count) values (${row}.site_id, '${table}', 0, 0 ${step})
            on conflict (site_id, table_name, shard) do update set row_count = row_count ${step};
        end`).execute(db);
      }
    }
  }
  for (const table of COUNTED_TABLES) {
    await sql.raw(`insert into row_counts (site_id, table_name, shard, row_count)
      select site_id, '${table}', 0, count(*) from ${table} group by site_id`).execute(db);
  }
}
