// Shared by the alert and MCP-context suites: traffic imported through POST /v1/ingest (import
// mode keeps past timestamps), pipeline cycles, and small request helpers.
import { expect } from 'vitest';
import { bearer, type Harness } from './harness.ts';
import { runCycle } from '../../src/pipeline/cycle.ts';

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
export const INTERVAL = 15 * MIN;

export type Ev = Record<string, unknown>;
export interface Visit { sid: string; vid: string; events: Ev[] }

let serial = 0;
/** A fresh 32-hex id, unique within the run. */
export const hexId = () => (++serial).toString(16).padStart(8, '0') + Math.random().toString(16).slice(2, 10).padEnd(8, '0') + '0'.repeat(16);

export async function ingest(h: Harness, key: string, visits: Visit[]) {
  for (const v of visits) {
    const res = await h.app.inject({
      method: 'POST', url: '/v1/ingest', headers: bearer(key),
      payload: { sid: v.sid, vid: v.vid, url: 'https://shop.example/', ts: Math.max(...v.events.map((e) => Number(e.ts))), import: true, events: v.events },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data.rejected, res.body).toBe(0);
  }
}

export interface PageTraffic {
  page: string;
  /** Distinct visitors viewing the page (default 10, which keeps the window to one interval). */
  users?: number;
  /** Signals, each from visitor `by` (default 0) on `element`. */
  signals?: { type: string; element: string; by?: number; count?: number; confidence?: number }[];
}

/**
 * One interval's traffic: every page gets its visitors (one new session each) between `from`
 * and `from` + 10 minutes, so a cycle at `from` + 15 minutes scores exactly this traffic.
 */
export function intervalTraffic(from: number, pages: PageTraffic[]): Visit[] {
  const visits: Visit[] = [];
  for (const p of pages) {
    const users = p.users ?? 10;
    for (let i = 0; i < users; i++) {
      const t = from + MIN + i * 20_000;
      const events: Ev[] = [{ type: 'pageview', ts: t, page: p.page }];
      let n = 0;
      for (const s of p.signals ?? []) {
        if ((s.by ?? 0) !== i) continue;
        for (let c = 0; c < (s.count ?? 1); c++) {
          events.push({ type: 'signal', ts: t + 1000 + 100 * n++, page: p.page, signal_type: s.type, element: s.element, label: 'Button', confidence: s.confidence ?? 1 });
        }
      }
      visits.push({ sid: hexId(), vid: hexId(), events });
    }
  }
  return visits;
}

export async function cycle(h: Harness, siteId: string, t: number) {
  const result = await runCycle(h.store.db, siteId, t, { intervalMs: INTERVAL, clock: h.clock });
  expect(result.status).toBe('done');
  return result;
}

export function api(h: Harness, key: string) {
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const res = await h.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.json() as { data: any; error: any }, raw: res.body };
  };
  return {
    key,
    call,
    async get(url: string) {
      const res = await call('GET', url);
      expect(res.status, res.raw).toBe(200);
      return res.body.data;
    },
    async createRule(body: Record<string, unknown>) {
      const res = await call('POST', '/v1/manage/alert-rules', body);
      expect(res.status, res.raw).toBe(201);
      return res.body.data as { id: string } & Record<string, unknown>;
    },
    async alerts(query = '') {
      return (await this.get(`/v1/query/alerts?limit=200${query}`)) as { alerts: any[]; total: number; offset: number; limit: number };
    },
  };
}
