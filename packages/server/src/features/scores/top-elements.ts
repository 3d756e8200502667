// The elements of a page with the most friction signals in a window, optionally only from
// sessions on one device type, each with its dominant signal and a recommendation.
//
// Without a device filter the whole hours inside the window come from the element rollup
// (store/element-rollup.ts, kept at ingest) and only the partial hours at the window's edges
// from raw signals, so the cost follows the hours of the window rather than its traffic. The
// rollup holds no device, so the device filter reads raw signals (topElementsFromRaw), which
// is also the reference the rollup is tested against.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { iso } from '../../clock.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { HOUR_MS } from '../../store/element-rollup.ts';
import type { Database } from '../../store/tables.ts';
import type { DeviceType } from '../../domain/read-window.ts';

export interface ElementFilter {
  since: number;
  /** Exclusive; null for no end. */
  until: number | null;
  device: DeviceType | null;
}

interface TypeRow { element: string; signal_type: string; n: number | string | bigint; users: number | string; label: string | null }
interface ElementRow { element: string; users: number | string }

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

/** The aggregate over raw signals: every signal of the page in the window is read. */
async function fromRaw(db: Kysely<Database>, siteId: string, page: string, filter: ElementFilter) {
  const signals = signalsOf(db, siteId, page, filter);
  const users = sql<number>`count(distinct coalesce(visitor_id, sid))`;
  const rows: TypeRow[] = await signals
    .select(['element', 'signal_type', (eb) => eb.fn.countAll().as('n'), users.as('users'), (eb) => eb.fn.max('label').as('label')])
    .groupBy(['element', 'signal_type']).execute();
  const perElement: ElementRow[] = await signals.select(['element', users.as('users')]).groupBy('element').execute();
  return { rows, perElement };
}

/**
 * The same aggregate from the rollup's whole hours in [since, until) plus the raw signals of
 * the partial hours at each end, merged in SQL: counts add, max(label) and the distinct users
 * (a union of user sets) are taken over both, as the database compares them on raw rows.
 */
async function fromRollup(db: Kysely<Database>, siteId: string, page: string, since: number, until: number | null) {
  const first = Math.ceil(since / HOUR_MS) * HOUR_MS;
  const end = until === null ? null : Math.floor(until / HOUR_MS) * HOUR_MS;
  const raw = (from: number, to: number | null) => {
    let q = db.selectFrom('signals')
      .select(['element', 'signal_type', sql<string>`coalesce(visitor_id, sid)`.as('user_key'), sql<number>`1`.as('n'), 'label'])
      .where('site_id', '=', siteId).where('page', '=', page).where('element', '!=', '').where('occurred_at', '>=', from);
    if (to !== null) q = q.where('occurred_at', '<', to);
    return q;
  };
  let parts: SelectQueryBuilder<Database, 'signals', { element: string; signal_type: string; user_key: string; n: number; label: string | null }>;
  if (end !== null && end <= first) {
    parts = raw(since, until); // no whole hour inside the window
  } else {
    let hours = db.selectFrom('element_rollup')
      .select(['element', 'signal_type', 'user_key', 'signals as n', 'label'])
      .where('site_id', '=', siteId).where('page', '=', page).where('hour', '>=', first);
    if (end !== null) hours = hours.where('hour', '<', end);
    parts = raw(since, first).unionAll(hours);
    if (end !== null) parts = parts.unionAll(raw(end, until));
  }
  const merged = db.selectFrom(parts.as('parts'));
  const users = sql<number>`count(distinct user_key)`;
  const rows: TypeRow[] = await merged
    .select(['element', 'signal_type', (eb) => eb.fn.sum<number>('n').as('n'), users.as('users'), (eb) => eb.fn.max('label').as('label')])
    .groupBy(['element', 'signal_type']).execute();
  const perElement: ElementRow[] = await merged.select(['element', users.as('users')]).groupBy('element').execute();
  return { rows, perElement };
}

/** The top elements read from raw signals only: the device filter's path, and the rollup's reference. */
export async function topElementsFromRaw(db: Kysely<Database>, siteId: string, page: string, filter: ElementFilter, limit: number) {
  return shape(await fromRaw(db, siteId, page, filter), limit);
}

/** Each element with the window its counts cover, so no face shows a count without its span. */
export function withWindow<T extends object>(elements: T[], from: number, to: number) {
  return elements.map((e) => ({ ...e, window_from: iso(from), window_to: iso(to) }));
}

export async function topElements(db: Kysely<Database>, siteId: string, page: string, filter: ElementFilter, limit: number) {
  // The rollup has no device: a device filter reads raw signals joined to their sessions.
  if (filter.device) return topElementsFromRaw(db, siteId, page, filter, limit);
  return shape(await fromRollup(db, siteId, page, filter.since, filter.until), limit);
}

function shape({ rows, perElement }: { rows: TypeRow[]; perElement: ElementRow[] }, limit: number) {
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
