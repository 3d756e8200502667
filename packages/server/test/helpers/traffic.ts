// Traffic for issue, verification and revenue tests: visits sent through the real ingest
// route with the site's publishable key (live mode: the batch `ts` is the harness clock, so
// events keep their times as long as they are at most 7 days old), cycles run as of a time,
// and the outbox read back.
import { expect } from 'vitest';
import { runCycle } from '../../src/pipeline/cycle.ts';
import { bearer, type Harness, type Org } from './harness.ts';

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
export const INTERVAL = 15 * MIN;

export type { Org };

export interface SignalSpec { type: string; element: string; label?: string; page?: string }
export interface Visit {
  /** A distinct number per visit in the test: it becomes the session and visitor ids. */
  n: number;
  page: string;
  at: number;
  signals?: SignalSpec[];
  /** Conversion or other track() events, after the signals. */
  tracks?: { name: string; amount_cents?: number }[];
}

let tag = 0;
/** A fresh 8-hex prefix per scenario, so two scenarios never share a session id. */
export const newTag = () => (++tag * 7919 + 0x1000000).toString(16).padStart(8, '0').slice(-8);
export const sidOf = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(24, '0')}`;
export const vidOf = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(23, '0')}f`;

/** Sends one session per visit: a pageview at `at`, one signal a second apart after it, then tracks. */
export async function sendVisits(h: Harness, org: Org, prefix: string, visits: Visit[]) {
  for (const v of visits) {
    const events: Record<string, unknown>[] = [{ type: 'pageview', ts: v.at, page: v.page }];
    (v.signals ?? []).forEach((s, i) => events.push({
      type: 'signal', ts: v.at + (i + 1) * 1000, page: s.page ?? v.page, signal_type: s.type, element: s.element,
      ...(s.label ? { label: s.label } : {}), confidence: 1,
    }));
    (v.tracks ?? []).forEach((t, i) => events.push({
      type: 'track', ts: v.at + 50_000 + i * 1000, page: v.page, name: t.name,
      ...(t.amount_cents === undefined ? {} : { props: { amount_cents: t.amount_cents } }),
    }));
    const res = await h.app.inject({
      method: 'POST', url: '/v1/ingest',
      payload: { key: org.keys.publishable, sid: sidOf(prefix, v.n), vid: vidOf(prefix, v.n), url: `https://shop.example${v.page}`, ts: h.clock.now(), events },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data, res.body).toMatchObject({ accepted: events.length, rejected: 0 });
  }
}

/** `count` visits numbered from `from`, `gap` apart from `at`; the first `withSignal` carry `signal`. */
export function visits(from: number, count: number, page: string, at: number, signal: SignalSpec, withSignal: number, gap = 2000): Visit[] {
  return Array.from({ length: count }, (_, i) => ({ n: from + i, page, at: at + i * gap, signals: i < withSignal ? [signal] : [] }));
}

export async function cycle(h: Harness, siteId: string, at: number) {
  const result = await runCycle(h.store.db, siteId, at, { intervalMs: INTERVAL, clock: h.clock });
  expect(result.status).toBe('done');
  return result;
}

/** Every event queued for the site, oldest first. */
export async function outboxEvents(h: Harness, siteId: string) {
  const rows = await h.store.db.selectFrom('outbox').select(['payload', 'created_at']).where('site_id', '=', siteId)
    .where('kind', '=', 'event').orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.payload) as { type: string; timestamp: string; site_id: string; data: Record<string, unknown> });
}

export async function eventsOfType(h: Harness, siteId: string, type: string) {
  return (await outboxEvents(h, siteId)).filter((e) => e.type === type);
}

export async function api(h: Harness, token: string, method: 'GET' | 'PATCH' | 'POST', url: string, payload?: unknown) {
  return h.app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
}

export async function ok(h: Harness, token: string, method: 'GET' | 'PATCH' | 'POST', url: string, payload?: unknown, status = method === 'POST' ? 201 : 200) {
  const res = await api(h, token, method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json().data;
}

/** Starts a scenario on a new org at the next UTC midnight at least a day ahead (the clock only moves forward). */
export async function freshStart(h: Harness): Promise<{ org: Org; start: number; prefix: string }> {
  const start = Math.ceil((h.clock.now() + DAY) / DAY) * DAY;
  h.clock.set(start);
  return { org: await h.org('Issues'), start, prefix: newTag() };
}

/** The site's only issue, or the one on `page`. */
export async function issueRow(h: Harness, siteId: string, page?: string) {
  let q = h.store.db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId);
  if (page) q = q.where('page', '=', page);
  const rows = await q.execute();
  expect(rows).toHaveLength(1);
  return rows[0];
}
