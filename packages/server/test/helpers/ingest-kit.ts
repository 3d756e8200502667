// Shared by the ingest-* and raw-* suites: batches sent through the real POST /v1/ingest,
// fresh orgs, and row counts read straight from the store.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/store/db.ts';
import { bearer, type Harness, type Org } from './harness.ts';

export const SEC = 1000;
export const MIN = 60 * SEC;
export const DAY = 24 * 60 * MIN;

export type { Org };

export const hex32 = () => randomBytes(16).toString('hex');

export const CHROME_WINDOWS_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export type Ev = Record<string, unknown>;

/** POST /v1/ingest with a JSON object body (or raw text when `body` is a string). */
export function postIngest(h: Harness, body: unknown, headers: Record<string, string> = {}) {
  return h.app.inject({
    method: 'POST', url: '/v1/ingest',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
}

/** A live batch (batch `ts` = server now, so event times are kept as sent). */
export function batch(h: Harness, org: Org, sid: string, events: unknown[], extra: Record<string, unknown> = {}) {
  return { key: org.keys.publishable, sid, ts: h.clock.now(), events, ...extra };
}

/** Sends a live batch and expects every event accepted. */
export async function send(h: Harness, org: Org, sid: string, events: Ev[], extra: Record<string, unknown> = {}) {
  const res = await postIngest(h, batch(h, org, sid, events, extra));
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().data, res.body).toMatchObject({ accepted: events.length, rejected: 0 });
  return res.json().data as { accepted: number; rejected: number; duplicates: number; dropped: number };
}

/** Sends an import (secret key, original timestamps kept up to 90 days). */
export async function sendImport(h: Harness, org: Org, sid: string, events: Ev[]) {
  const res = await postIngest(h, { sid, ts: h.clock.now(), import: true, events }, bearer(org.keys.secret));
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().data, res.body).toMatchObject({ accepted: events.length, rejected: 0 });
}

export async function countRows(store: Store, siteId: string) {
  const out: Record<'sessions' | 'events' | 'signals', number> = { sessions: 0, events: 0, signals: 0 };
  for (const table of ['sessions', 'events', 'signals'] as const) {
    const row = await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('site_id', '=', siteId).executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

export async function query(h: Harness, token: string, url: string) {
  return h.app.inject({ method: 'GET', url, headers: bearer(token) });
}

export async function queryOk(h: Harness, token: string, url: string) {
  const res = await query(h, token, url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json().data;
}

/** A 400 invalid_input naming `field`. */
export async function expectInvalid(h: Harness, token: string, url: string, field: string, code = 'invalid_input') {
  const res = await query(h, token, url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
  expect(res.json().data).toBeNull();
  expect(res.json().error).toMatchObject({ code, status: 400, details: { field } });
}
