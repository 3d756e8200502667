// What a funnel reads, bounded by the sessions that entered its first step:
//   1. the sessions with a hit of step 1 in the window (and on the device class): for a page
//      step through events_site_page_time (site_id, page, occurred_at), exact pages by equality
//      and wildcard patterns by LIKE over the site's pageviews of the window; for an event step
//      through events_site_track (site_id, name, occurred_at);
//   2. for those sessions only, in chunks of CHUNK, their pageviews of the window (the covering
//      events_site_sid_pageviews), their track events (events_dedupe, by session) and their
//      signals (signals_site_sid); track events and signals are kept to the window and the
//      step names here, not in SQL: with a time range SQLite (no statistics) walked the
//      site's whole window through events_site_time and signals_site_time for every chunk;
// so the cost follows how many sessions entered the funnel, never the site's whole history.
// Pages are matched to patterns in JavaScript (matchesPagePattern): SQL's LIKE only narrows,
// since SQLite's ignores case.
import { sql, type Kysely } from 'kysely';
import type { DeviceType } from '../../domain/read-window.ts';
import { hasWildcard, likePattern, matchesPagePattern } from '../../domain/page-pattern.ts';
import { padInList } from '../../store/in-list.ts';
import type { Database } from '../../store/tables.ts';
import type { FunnelSession, FunnelStep, Hit } from './walk.ts';

/** Sessions loaded at once: bounds memory and the IN lists whatever the number of entrants. */
export const CHUNK = 500;

export interface FunnelFilters { from: number; to: number; device?: DeviceType }

/** The sessions with a hit of the first step within the window, in no particular order. */
export async function entrantSessionIds(db: Kysely<Database>, siteId: string, first: FunnelStep, { from, to, device }: FunnelFilters): Promise<string[]> {
  let query = db.selectFrom('events').select(['events.sid', 'events.page'])
    .where('events.site_id', '=', siteId).where('events.occurred_at', '>=', from).where('events.occurred_at', '<', to);
  if (first.kind === 'event') query = query.where('events.type', '=', 'track').where('events.name', '=', first.step);
  else if (hasWildcard(first.step)) query = query.where('events.type', '=', 'pageview').where(sql<boolean>`events.page like ${likePattern(first.step)} escape '\\'`);
  else query = query.where('events.type', '=', 'pageview').where('events.page', '=', first.step);
  if (device) {
    query = query.innerJoin('sessions', (j) => j.onRef('sessions.site_id', '=', 'events.site_id').onRef('sessions.sid', '=', 'events.sid'))
      .where('sessions.device_type', '=', device);
  }
  const rows = await query.distinct().execute();
  const sids = new Set<string>();
  for (const r of rows) if (first.kind === 'event' || matchesPagePattern(first.step, r.page)) sids.add(r.sid);
  return [...sids];
}

/**
 * The sessions' step hits (pageviews of a step's pages and track events named by a step, in
 * order of time then id) and signals, within the window. Sessions come back in the order given.
 */
export async function loadFunnelSessions(db: Kysely<Database>, siteId: string, sids: readonly string[], steps: readonly FunnelStep[], { from, to }: FunnelFilters): Promise<FunnelSession[]> {
  if (sids.length === 0) return [];
  const pageSteps = steps.filter((s) => s.kind === 'page').map((s) => s.step);
  const eventNames = [...new Set(steps.filter((s) => s.kind === 'event').map((s) => s.step))];
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
  const byId = new Map<string, FunnelSession & { signals: { at: number; type: string; page: string }[] }>();
  for (const sid of sids) {
    const mine = hits.get(sid)!.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    byId.set(sid, { hits: mine.map(({ at, kind, value, page }) => ({ at, kind, value, page })), signals: [] });
  }
  for (const s of signals) if (inWindow(s.occurred_at)) byId.get(s.sid)?.signals.push({ at: s.occurred_at, type: s.signal_type, page: s.page });
  return sids.map((sid) => byId.get(sid)!);
}
