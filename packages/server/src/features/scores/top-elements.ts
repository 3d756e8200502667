// The elements of a page with the most friction signals in a window, optionally only from
// sessions on one device type, each with its dominant signal and a recommendation.
import { sql, type Kysely } from 'kysely';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import type { Database } from '../../store/tables.ts';
import type { DeviceType } from '../../domain/read-window.ts';

export interface ElementFilter {
  since: number;
  /** Exclusive; null for no end. */
  until: number | null;
  device: DeviceType | null;
}

function signalsOf(db: Kysely<Database>, siteId: string, page: string, filter: ElementFilter) {
  let query = db.selectFrom('signals')
    .where('site_id', '=', siteId).where('page', '=', page).where('element', '!=', '').where('occurred_at', '>=', filter.since);
  if (filter.until !== null) query = query.where('occurred_at', '<', filter.until);
  // The device is the session's (sessions.device_type, from the user agent at ingest).
  if (filter.device) {
    query = query.where('sid', 'in', db.selectFrom('sessions').select('sid').where('site_id', '=', siteId).where('device_type', '=', filter.device));
  }
  return query;
}

export async function topElements(db: Kysely<Database>, siteId: string, page: string, filter: ElementFilter, limit: number) {
  const signals = signalsOf(db, siteId, page, filter);
  const users = sql<number>`count(distinct coalesce(visitor_id, sid))`;
  const rows = await signals
    .select(['element', 'signal_type', (eb) => eb.fn.countAll().as('n'), users.as('users'), (eb) => eb.fn.max('label').as('label')])
    .groupBy(['element', 'signal_type']).execute();
  const perElement = await signals.select(['element', users.as('users')]).groupBy('element').execute();
  const affected = new Map(perElement.map((u) => [u.element, Number(u.users)]));
  const byElement = new Map<string, { label: string | null; signals: Record<string, number>; total: number }>();
  for (const r of rows) {
    const e = byElement.get(r.element) ?? { label: null, signals: {}, total: 0 };
    e.signals[r.signal_type] = Number(r.n);
    e.total += Number(r.n);
    e.label ??= r.label;
    byElement.set(r.element, e);
  }
  return [...byElement.entries()]
    .map(([element, e]) => {
      const dominant = Object.entries(e.signals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
      return {
        element_selector: element, label: e.label, signal_count: e.total, signals: e.signals,
        dominant_signal: dominant, affected_users: affected.get(element) ?? 0, recommendation: recommendationFor(dominant),
      };
    })
    .sort((a, b) => b.signal_count - a.signal_count || b.affected_users - a.affected_users || a.element_selector.localeCompare(b.element_selector))
    .slice(0, limit);
}
