// Friction clips and page snapshots (issue 28): a few masked seconds of rrweb events around
// friction signals, and once per page, device class and UTC day a full snapshot of the page.
//
//   clips         one row per upload (kind 'clip' or 'snapshot'), its rrweb events stored
//                 compressed (`encoding`, brotli) in `body`: SQLite BLOB, PostgreSQL bytea.
//                 `client_id` is the SDK's id: unique per site, so a retry stores nothing twice.
//   clip_signals  the signals a clip covers, one row each (its client event id, type, element,
//                 page), so the reads filter by signal type and issue and the element cap counts
//                 a day's clips per element through an index. They go with their clip (cascade).
//
// Indexes, each for a read or a budget:
//   clips_site_started  (site_id, kind, started_at): GET /v1/query/clips, newest first, and `from`/`to`
//   clips_site_created  (site_id, created_at, kind, bytes): today's bytes against the budget, today's
//                       snapshots, and retention
//   clips_site_sid      (site_id, sid): a session's clips (filter, has_clips, erasure)
//   clips_site_page     (site_id, kind, page, device, created_at): the latest snapshot, one per day
//   clip_signals_day    (site_id, created_at, element, clip_id): clips per element today (the element
//                       cap, and the public config's full elements), a range of today's rows only
//   clip_signals_pk     (clip_id, event_id): a clip's signals, probed by the signal type and issue filters
//                       (a site's clips are bounded by its budget and clip retention)
//
// Sites gain clip_retention_days (default 30) and clip_daily_bytes (default 50 MiB, the daily
// byte budget of uploads, compressed as stored). Clips are counted in row_counts (migration 0010),
// by the same kind of triggers.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const DEFAULT_CLIP_RETENTION_DAYS = 30;
const DEFAULT_CLIP_DAILY_BYTES = 50 * 1024 * 1024;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const s = db.schema;
  await s.alterTable('sites').addColumn('clip_retention_days', 'integer', (c) => c.notNull().defaultTo(DEFAULT_CLIP_RETENTION_DAYS)).execute();
  await s.alterTable('sites').addColumn('clip_daily_bytes', 'bigint', (c) => c.notNull().defaultTo(DEFAULT_CLIP_DAILY_BYTES)).execute();

  await s.createTable('clips')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('signal_ids', 'text', (c) => c.notNull())
    .addColumn('signal_types', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('body', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('clips_client_id', ['site_id', 'client_id'])
    .execute();
  await s.createIndex('clips_site_started').on('clips').columns(['site_id', 'kind', 'started_at']).execute();
  await s.createIndex('clips_site_created').on('clips').columns(['site_id', 'created_at', 'kind', 'bytes']).execute();
  await s.createIndex('clips_site_sid').on('clips').columns(['site_id', 'sid']).execute();
  await s.createIndex('clips_site_page').on('clips').columns(['site_id', 'kind', 'page', 'device', 'created_at']).execute();

  await s.createTable('clip_signals')
    .addColumn('clip_id', 'text', (c) => c.notNull().references('clips.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('signal_type', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('element', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('clip_signals_pk', ['clip_id', 'event_id'])
    .execute();
  await s.createIndex('clip_signals_day').on('clip_signals').columns(['site_id', 'created_at', 'element', 'clip_id']).execute();

  // Row counts, as migration 0010 keeps them for the other tables (its functions, on PostgreSQL).
  if (postgres) {
    await sql.raw(`create trigger clips_count_inserted after insert on clips referencing new table as changed_rows
      for each statement execute function mallard_count_inserted()`).execute(db);
    await sql.raw(`create trigger clips_count_deleted after delete on clips referencing old table as changed_rows
      for each statement execute function mallard_count_deleted()`).execute(db);
  } else {
    for (const [name, event, row, step] of [['inserted', 'insert', 'new', '+ 1'], ['deleted', 'delete', 'old', '- 1']] as const) {
      await sql.raw(`create trigger clips_count_${name} after ${event} on clips begin
        insert into row_counts (site_id, table_name, shard, row_count) values (${row}.site_id, 'clips', 0, 0 ${step})
          on conflict (site_id, table_name, shard) do update set row_count = row_count ${step};
      end`).execute(db);
    }
  }
}
