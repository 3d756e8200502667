// The sessions a journey read looks at: the most recently active multi-page sessions of the
// site within the read's window (a session counts whole when it was active in the window)
// and on the requested device class, with their pageviews and, for the friction map, signals.
import { padInList } from '../../store/in-list.ts';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';
import type { DeviceType, ReadWindow } from '../../domain/read-window.ts';
import { compareFlowEdges, type FlowEdge, type JourneySession } from './friction.ts';

export interface JourneyFilters { window: ReadWindow; device?: DeviceType }

export async function recentSessionIds(db: Kysely<Database>, siteId: string, { window, device }: JourneyFilters, limit: number): Promise<string[]> {
  let query = db.selectFrom('sessions').select('sid').where('site_id', '=', siteId).where('page_count', '>=', 2);
  if (window.from !== null) query = query.where('last_seen_at', '>=', window.from);
  if (window.to !== null) query = query.where('first_seen_at', '<', window.to);
  if (device) query = query.where('device_type', '=', device);
  const rows = await query.orderBy('last_seen_at', 'desc').orderBy('sid', 'asc').limit(limit).execute();
  return rows.map((r) => r.sid);
}

/**
 * The pageviews of these sessions, bounded by them: the unique index events_dedupe
 * (site_id, sid, ...) finds each session's events. Unordered on purpose: with an ORDER BY
 * occurred_at SQLite (no statistics) read the site's whole events_site_time instead.
 */
export function pageviewsQuery(db: Kysely<Database>, siteId: string, sids: string[]) {
  return db.selectFrom('events').select(['id', 'sid', 'page', 'occurred_at'])
    .where('site_id', '=', siteId).where('sid', 'in', padInList(sids)).where('type', '=', 'pageview');
}

export async function loadSessions(db: Kysely<Database>, siteId: string, sids: string[], withSignals: boolean): Promise<JourneySession[]> {
  if (sids.length === 0) return [];
  const byId = new Map<string, JourneySession>(sids.map((sid) => [sid, { sid, pageviews: [], signals: [] }]));
  const views = await pageviewsQuery(db, siteId, sids).execute();
  // Each session's pageviews in order: occurred_at, then id.
  views.sort((a, b) => a.occurred_at - b.occurred_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const v of views) byId.get(v.sid)!.pageviews.push({ page: v.page, at: v.occurred_at });
  if (withSignals) {
    const signals = await db.selectFrom('signals').select(['id', 'sid', 'signal_type', 'page', 'element', 'occurred_at', 'confidence'])
      .where('site_id', '=', siteId).where('sid', 'in', padInList(sids)).execute();
    for (const s of signals) byId.get(s.sid)!.signals.push({ id: s.id, type: s.signal_type, page: s.page, element: s.element, at: s.occurred_at, confidence: s.confidence });
  }
  return [...byId.values()];
}

/**
 * Page-to-page navigation of these sessions (every consecutive pair of pageviews, in order of
 * time then id; a reload goes to itself), counted in the database: only the edges leave it,
 * not the sessions' pageviews (flows reads up to 5,000 sessions, and copying their pageviews
 * to the main thread to walk them there was most of its cost under load).
 */
export async function flowEdgesOf(db: Kysely<Database>, siteId: string, sids: string[], maxEdges: number): Promise<FlowEdge[]> {
  if (sids.length === 0) return [];
  const steps = pageviewsQuery(db, siteId, sids)
    .select(sql<string | null>`lag(page) over (partition by sid order by occurred_at, id)`.as('previous'));
  const rows = await db.selectFrom(steps.as('steps'))
    .select(['previous', 'page', (eb) => eb.fn.countAll().as('transitions'), sql<number>`count(distinct sid)`.as('sessions')])
    .where('previous', 'is not', null).groupBy(['previous', 'page']).execute();
  // Sorted here, not in SQL: the tie-break compares pages as JavaScript does, whatever the collation.
  return rows
    .map((r) => ({ from: r.previous!, to: r.page, transitions: Number(r.transitions), sessions: Number(r.sessions) }))
    .sort(compareFlowEdges)
    .slice(0, maxEdges);
}
