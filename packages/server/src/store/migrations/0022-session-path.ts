// Funnels at a bounded cost (issue 29): each session row keeps its path, its pageviews, track
// events and signals in order as one compact JSON array (store/session-path.ts has the format
// and who keeps it), so GET /v1/query/funnel reads one row per candidate session instead of
// joining the session's events and signals.
// Backfill: every stored session's path from its events and signals, ordered by time then event
// id (the order the funnel walks hits in); paths longer than 1,000 entries are left NULL, which
// readers take as "read this session's events". The format and the cap are written out, not
// imported: a migration states what it did when it ran.
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

const MAX_PATH_ENTRIES = 1000;

/** Every session's path from its events and signals; `where` narrows the sessions (the whole table by default). */
export async function backfillSessionPaths(db: Kysely<any>, where: RawBuilder<unknown> = sql`true`): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`update sessions set path = coalesce((
      select json_agg(entry order by at, ord collate "C")::text from (
        select e.occurred_at as at, e.id as ord, case when e.type = 'pageview' then json_build_array(e.occurred_at, 'p', e.page)
          else json_build_array(e.occurred_at, 'e', e.name, e.page) end as entry
        from events e where e.site_id = sessions.site_id and e.sid = sessions.sid and e.type in ('pageview', 'track')
        union all
        select g.occurred_at, g.event_id, json_build_array(g.occurred_at, 's', g.signal_type, g.page)
        from signals g where g.site_id = sessions.site_id and g.sid = sessions.sid
      ) entries), '[]') where ${where}`.execute(db);
    await sql`update sessions set path = null where ${where} and event_count > ${MAX_PATH_ENTRIES} and json_array_length(path::json) > ${MAX_PATH_ENTRIES}`.execute(db);
    return;
  }
  // SQLite: json() keeps each entry an array (a subquery's column loses its JSON subtype).
  await sql`update sessions set path = (
    select json_group_array(json(entry) order by at, ord) from (
      select e.occurred_at as at, e.id as ord, case when e.type = 'pageview' then json_array(e.occurred_at, 'p', e.page)
        else json_array(e.occurred_at, 'e', e.name, e.page) end as entry
      from events e where e.site_id = sessions.site_id and e.sid = sessions.sid and e.type in ('pageview', 'track')
      union all
      select g.occurred_at, g.event_id, json_array(g.occurred_at, 's', g.signal_type, g.page)
      from signals g where g.site_id = sessions.site_id and g.sid = sessions.sid
    )) where ${where}`.execute(db);
  await sql`update sessions set path = null where ${where} and event_count > ${MAX_PATH_ENTRIES} and json_array_length(path) > ${MAX_PATH_ENTRIES}`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('path', 'text').execute();
  await backfillSessionPaths(db);
}
