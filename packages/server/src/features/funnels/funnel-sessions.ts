// What a funnel reads, bounded by FUNNEL_SESSION_CAP sessions whatever the site's traffic:
//   1. the most recent sessions with a hit of step 1 in the window (and on the device class),
//      newest hit first, until FUNNEL_SESSION_CAP of them (one more says the answer is sampled):
//      for a page step through events_site_page_time (site_id, page, occurred_at), exact pages by
//      equality and wildcard patterns by LIKE; for an event step through events_site_track
//      (site_id, name, occurred_at); read in pages of ENTRANT_PAGE rows, so the read stops there;
//   2. for those sessions, in chunks of CHUNK, their rows' paths (sessions.path, migration 0022:
//      pageviews, track events and signals in order, one row per session), kept to the window
//      and the step names here; a session whose path is not kept (NULL, or no session row) is
//      read from its pageviews (events_site_sid_pageviews), track events (events_dedupe) and
//      signals (signals_site_sid) instead, which gives the same hits.
// Pages are matched to patterns in JavaScript (matchesPagePattern): SQL's LIKE only narrows,
// since SQLite's ignores case.
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { DeviceType } from '../../domain/read-window.ts';
import { hasWildcard, likePattern, matchesPagePattern } from '../../domain/page-pattern.ts';
import { padInList } from '../../store/in-list.ts';
import type { Database } from '../../store/tables.ts';
import { readPath } from '../../store/session-path.ts';
import { FUNNEL_SESSION_CAP } from './steps.ts';
import type { FunnelSession, FunnelStep, Hit, SignalHit } from './walk.ts';

/** Sessions loaded at once: bounds memory and the IN lists whatever the number of entrants. */
export const CHUNK = 500;

export interface FunnelFilters { from: number; to: number; device?: DeviceType }

/** Rows of step-1 hits read at a time while looking for entrants. */
const ENTRANT_PAGE = 2000;

export interface Entrants { sids: string[]; sampled: boolean }

/**
 * The sessions with a hit of the first step within the window, most recent hit first, at most
 * `cap` of them; `sampled` when more sessions entered than that.
 */
export async function entrantSessionIds(db: Kysely<Database>, siteId: string, first: FunnelStep, { from, to, device }: FunnelFilters, cap = FUNNEL_SESSION_CAP, pageRows = ENTRANT_PAGE): Promise<Entrants> {
  // An exact page or an event name reads its own index (site_id, page or name, occurred_at) as a
  // range, newest first, and stops there. SQLite (no statistics) is told which index
  // (INDEXED BY): left to choose, it took events_site_time for the order and read every event
  // of the site's window (225 ms at 100k signals), or the pageview index and sorted them all.
  // A LIKE pattern cannot use the page index: events_site_time, newest first, is its range.
  const sqlite = !(db.getExecutor().adapter instanceof PostgresAdapter);
  const index = !sqlite ? sql`` : first.kind === 'event' ? sql` indexed by events_site_track`
    : hasWildcard(first.step) ? sql` indexed by events_site_time` : sql` indexed by events_site_page_time`;
  const which = first.kind === 'event' ? sql`e.type = 'track' and e.name = ${first.step}`
    : hasWildcard(first.step) ? sql`e.type = 'pageview' and e.page like ${likePattern(first.step)} escape '\\'`
    : sql`e.type = 'pageview' and e.page = ${first.step}`;
  const onDevice = device ? sql` join sessions s on s.site_id = e.site_id and s.sid = e.sid and s.device_type = ${device}` : sql``;
  type Row = { id: string; sid: string; page: string; occurred_at: number };
  // Ordered by the index's own time column only, so both planners read the index backwards and
  // stop at the limit (a second key made PostgreSQL sort the whole window first).
  const read = (time: RawBuilder<unknown>, limit: RawBuilder<unknown>) => sql<Row>`
    select e.id, e.sid, e.page, e.occurred_at from events e${index}${onDevice}
    where e.site_id = ${siteId} and e.occurred_at >= ${from} and e.occurred_at < ${to} and ${which} and ${time}
    order by e.occurred_at desc${limit}`.execute(db);
  // Newest first, ties by id (descending); equal times never straddle two pages.
  const newestFirst = (a: Row, b: Row) => Number(b.occurred_at) - Number(a.occurred_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  const sids = new Set<string>();
  let before: number | null = null;
  for (;;) {
    const { rows } = await read(before === null ? sql`true` : sql`e.occurred_at < ${before}`, sql` limit ${pageRows}`);
    const full = rows.length === pageRows;
    let batch = rows;
    if (full) {
      // The last instant read may have more rows than the page held: all of them, at once.
      before = Number(rows[rows.length - 1].occurred_at);
      const { rows: ties } = await read(sql`e.occurred_at = ${before}`, sql``);
      batch = [...rows.filter((r) => Number(r.occurred_at) !== before), ...ties];
    }
    for (const r of batch.sort(newestFirst)) {
      if (sids.has(r.sid) || (first.kind === 'page' && !matchesPagePattern(first.step, r.page))) continue;
      if (sids.size === cap) return { sids: [...sids], sampled: true };
      sids.add(r.sid);
    }
    if (!full) return { sids: [...sids], sampled: false };
  }
}

/**
 * The sessions' step hits (pageviews of a step's pages and track events named by a step, in
 * order of time then id) and signals, within the window. Sessions come back in the order given.
 */
export async function loadFunnelSessions(db: Kysely<Database>, siteId: string, sids: readonly string[], steps: readonly FunnelStep[], filters: FunnelFilters): Promise<FunnelSession[]> {
  if (sids.length === 0) return [];
  const { from, to } = filters;
  const pageSteps = steps.filter((s) => s.kind === 'page').map((s) => s.step);
  const eventNames = new Set(steps.filter((s) => s.kind === 'event').map((s) => s.step));
  const rows = await db.selectFrom('sessions').select(['sid', 'path']).where('site_id', '=', siteId).where('sid', 'in', padInList(sids)).execute();
  const byId = new Map<string, FunnelSession>();
  for (const row of rows) {
    const entries = readPath(row.path);
    if (!entries) continue;
    const hits: Hit[] = [];
    const signals: SignalHit[] = [];
    for (const e of entries) {
      const at = e[0];
      if (at < from || at >= to) continue;
      if (e[1] === 'p') {
        if (pageSteps.some((p) => matchesPagePattern(p, e[2]))) hits.push({ at, kind: 'page', value: e[2], page: e[2] });
      } else if (e[1] === 'e') {
        if (eventNames.has(e[2])) hits.push({ at, kind: 'event', value: e[2], page: e[3] });
      } else signals.push({ at, type: e[2], page: e[3] });
    }
    byId.set(row.sid, { hits, signals });
  }
  const missing = sids.filter((sid) => !byId.has(sid));
  if (missing.length > 0) {
    const loaded = await loadFromEvents(db, siteId, missing, pageSteps, [...eventNames], filters);
    missing.forEach((sid, i) => byId.set(sid, loaded[i]));
  }
  return sids.map((sid) => byId.get(sid)!);
}

/** loadFunnelSessions for sessions whose path is not kept: from their events and signals. */
async function loadFromEvents(db: Kysely<Database>, siteId: string, sids: readonly string[], pageSteps: readonly string[], eventNames: readonly string[], { from, to }: FunnelFilters): Promise<FunnelSession[]> {
  const list = padInList(sids);
  const [views, tracks, signals] = await Promise.all([
    pageSteps.length === 0 ? [] : db.selectFrom('events').select(['id', 'sid', 'page', 'occurred_at'])
      .where('site_id', '=', siteId).where('sid', 'in', list).where('type', '=', 'pageview')
      .where('occurred_at', '>=', from).where('occurred_at', '<', to).execute(),
    eventNames.length === 0 ? [] : db.selectFrom('events').select(['id', 'sid', 'page', 'name', 'occurred_at'])
      .where('site_id', '=', siteId).where('sid', 'in', list).where('type', '=', 'track').execute(),
    db.selectFrom('signals').select(['sid', 'signal_type', 'page', 'occurred_at'])
      .where('site_id', '=', siteId).where('sid', 'in', list).execute(),
  ]);
  const inWindow = (at: number) => at >= from && at < to;
  const hits = new Map<string, (Hit & { id: string })[]>(sids.map((sid) => [sid, []]));
  for (const v of views) {
    if (pageSteps.some((p) => matchesPagePattern(p, v.page))) hits.get(v.sid)?.push({ id: v.id, at: v.occurred_at, kind: 'page', value: v.page, page: v.page });
  }
  for (const t of tracks) if (inWindow(t.occurred_at) && eventNames.includes(t.name ?? '')) hits.get(t.sid)?.push({ id: t.id, at: t.occurred_at, kind: 'event', value: t.name ?? '', page: t.page });
  const byId = new Map<string, FunnelSession & { signals: SignalHit[] }>();
  for (const sid of sids) {
    const mine = hits.get(sid)!.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    byId.set(sid, { hits: mine.map(({ at, kind, value, page }) => ({ at, kind, value, page })), signals: [] });
  }
  for (const s of signals) if (inWindow(s.occurred_at)) byId.get(s.sid)?.signals.push({ at: s.occurred_at, type: s.signal_type, page: s.page });
  return sids.map((sid) => byId.get(sid)!);
}
