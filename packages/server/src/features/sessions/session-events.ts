// Every event of one session, in order (occurred_at, then id), each signal event with its
// signal's confidence. Both reads are bounded by the session: events by the unique index
// events_dedupe (site_id, sid, ...), signals by signals_site_sid. An ORDER BY occurred_at
// here made SQLite (no statistics) walk the site's whole events_site_time instead, and a join
// on signals.event_id (no index) scanned every signal: so the order and the join are in JS.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';

export function sessionEventsQuery(db: Kysely<Database>, siteId: string, sid: string) {
  return db.selectFrom('events')
    .select(['id', 'type', 'page', 'occurred_at', 'name', 'props', 'referrer_page', 'signal_type', 'element', 'label'])
    .where('site_id', '=', siteId).where('sid', '=', sid);
}

export function sessionSignalsQuery(db: Kysely<Database>, siteId: string, sid: string) {
  // A signal has its event's site and session (ingest writes both from the same batch).
  return db.selectFrom('signals').select(['event_id', 'confidence']).where('site_id', '=', siteId).where('sid', '=', sid);
}

export async function sessionEvents(db: Kysely<Database>, siteId: string, sid: string) {
  const [events, signals] = await Promise.all([sessionEventsQuery(db, siteId, sid).execute(), sessionSignalsQuery(db, siteId, sid).execute()]);
  const confidences = new Map<string, number[]>();
  for (const s of signals) confidences.set(s.event_id, [...(confidences.get(s.event_id) ?? []), s.confidence]);
  events.sort((a, b) => a.occurred_at - b.occurred_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // As the left join it replaces: one row per matching signal, or one with no confidence.
  return events.flatMap((e) => (confidences.get(e.id) ?? [null]).map((confidence) => ({ ...e, confidence })));
}
