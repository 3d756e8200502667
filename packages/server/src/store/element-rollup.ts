// The element rollup (table element_rollup, migration 0008): the signals on page elements
// (element != '') counted per (site, page, hour, element, signal type, user), with the greatest
// label, so the "top elements" of a window read whole hours from here instead of every signal.
// The user is coalesce(visitor_id, sid), as the raw aggregate counts it.
//
// Invariant: every rollup row equals the aggregate of the signals present in its bucket, so
// (rollup hours inside a window) + (raw signals at the window's partial edges) == raw signals.
// Who keeps it: ingest adds in the transaction that stores the signals (the upserts below);
// everything that deletes signals withdraws them through withdrawSignals() in one transaction
// (data-subject erasure, retention's partial hour), or drops whole hours of both (retention,
// site purge).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from './tables.ts';

export const HOUR_MS = 3_600_000;

/** The start of the hour holding `ms` (timestamps are positive milliseconds). */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

export interface RollupSignal {
  site_id: string; page: string; element: string; signal_type: string;
  visitor_id: string | null; sid: string; occurred_at: number; label: string | null;
}

const KEY = 'site_id, page, hour, element, signal_type, user_key';

// The greatest label compared by the database (its collation, as max(label) on raw rows does),
// never in JavaScript, whose string order differs from PostgreSQL's collations.
const ADD = `on conflict (${KEY}) do update set signals = element_rollup.signals + excluded.signals,
  label = case when excluded.label is null or (element_rollup.label is not null and element_rollup.label >= excluded.label)
    then element_rollup.label else excluded.label end`;

/** SQLite's hot path: one signal at a time through a statement prepared once per connection. */
export const SQLITE_ADD_ONE = `insert into element_rollup (${KEY}, signals, label) values (?, ?, ?, ?, ?, ?, 1, ?) ${ADD}`;

/** The values SQLITE_ADD_ONE binds for a signal. */
export const addOneValues = (s: RollupSignal) =>
  [s.site_id, s.page, hourOf(s.occurred_at), s.element, s.signal_type, s.visitor_id ?? s.sid, s.label];

const keyOf = (s: RollupSignal) => [s.site_id, s.page, hourOf(s.occurred_at), s.element, s.signal_type, s.visitor_id ?? s.sid] as const;

function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/**
 * Adds signals to the rollup in multi-row statements (PostgreSQL, where a statement is a round
 * trip). A statement may not touch a row twice, so the rows are grouped in SQL (count, max(label)
 * by the database's collation); every writer upserts its keys in one order (a rank given here)
 * so concurrent transactions cannot deadlock on rollup rows.
 */
export async function addToRollup(trx: Kysely<Database>, signals: readonly RollupSignal[], rowsPerStatement: number): Promise<void> {
  const onElements = signals.filter((s) => s.element !== '').map((s) => ({ key: keyOf(s), label: s.label }));
  if (onElements.length === 0) return;
  onElements.sort((a, b) => compareKeys(a.key, b.key));
  let rank = 0;
  const ranked = onElements.map((r, i) => {
    if (i > 0 && compareKeys(onElements[i - 1].key, r.key) !== 0) rank++;
    return { rank, ...r };
  });
  for (let i = 0; i < ranked.length; i += rowsPerStatement) {
    const rows = ranked.slice(i, i + rowsPerStatement).map((r) => sql`(${sql.join([r.rank, ...r.key, r.label])})`);
    // VALUES columns are column1.. on both dialects; parameters arrive as text on PostgreSQL.
    await sql`insert into element_rollup (${sql.raw(KEY)}, signals, label)
      select column2, column3, cast(column4 as bigint), column5, column6, column7, count(*), max(column8)
      from (values ${sql.join(rows)}) as v where true
      group by column1, column2, column3, column4, column5, column6, column7 order by cast(column1 as integer)
      ${sql.raw(ADD)}`.execute(trx);
  }
}

/**
 * Deletes the site's signals whose `column` is one of `values`, and takes them out of the
 * rollup, in the caller's transaction: counts are subtracted, rows left at zero go, and a row
 * whose greatest label left with them takes the greatest label of its remaining signals.
 * Returns how many signals were deleted.
 */
export async function withdrawSignals(trx: Transaction<Database>, siteId: string, column: 'id' | 'sid', values: readonly string[]): Promise<number> {
  if (values.length === 0) return 0;
  const col = sql.ref(`s.${column}`);
  // A literal, not a parameter: PostgreSQL matches the grouped expression to the selected one by text.
  const hour = sql.raw(String(HOUR_MS));
  const list = sql.join(values);
  const gone = sql`select s.page, s.element, s.signal_type, coalesce(s.visitor_id, s.sid) as user_key,
      s.occurred_at - s.occurred_at % ${hour} as hour, count(*) as n, max(s.label) as label
    from signals s where s.site_id = ${siteId} and s.element <> '' and ${col} in (${list})
    group by s.page, s.element, s.signal_type, coalesce(s.visitor_id, s.sid), s.occurred_at - s.occurred_at % ${hour}`;
  const sameBucket = (r: string) => sql`s.site_id = ${sql.ref(`${r}.site_id`)} and s.page = ${sql.ref(`${r}.page`)}
    and s.element = ${sql.ref(`${r}.element`)} and s.signal_type = ${sql.ref(`${r}.signal_type`)}
    and s.occurred_at >= ${sql.ref(`${r}.hour`)} and s.occurred_at < ${sql.ref(`${r}.hour`)} + ${hour}
    and coalesce(s.visitor_id, s.sid) = ${sql.ref(`${r}.user_key`)}`;
  await sql`update element_rollup set signals = element_rollup.signals - g.n,
      label = case when g.label is null or element_rollup.label <> g.label then element_rollup.label
        else (select max(s.label) from signals s where ${sameBucket('element_rollup')} and ${col} not in (${list})) end
    from (${gone}) as g
    where element_rollup.site_id = ${siteId} and element_rollup.page = g.page and element_rollup.hour = g.hour
      and element_rollup.element = g.element and element_rollup.signal_type = g.signal_type and element_rollup.user_key = g.user_key`.execute(trx);
  await sql`delete from element_rollup where site_id = ${siteId} and signals <= 0
    and (page, hour, element, signal_type, user_key) in (select g.page, g.hour, g.element, g.signal_type, g.user_key from (${gone}) as g)`.execute(trx);
  const deleted = await trx.deleteFrom('signals').where('site_id', '=', siteId).where(column, 'in', values).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Deletes the site's rollup rows of hours that end at or before `before`, at most `limit` at a time; returns how many. */
export async function dropRollupHours(db: Kysely<Database>, siteId: string, before: number, limit: number): Promise<number> {
  return dropRollupRows(db, siteId, sql`hour + ${HOUR_MS} <= ${before}`, limit);
}

/** Deletes the site's rollup rows matching `where` (all with sql`true`), at most `limit` at a time; returns how many. */
export async function dropRollupRows(db: Kysely<Database>, siteId: string, where: RawBuilder<unknown>, limit: number): Promise<number> {
  const result = await sql`delete from element_rollup where site_id = ${siteId} and (${sql.raw(KEY)}) in
    (select ${sql.raw(KEY)} from element_rollup where site_id = ${siteId} and ${where} limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
