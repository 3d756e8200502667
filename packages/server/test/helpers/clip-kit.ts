// Shared by the clips suites: a session with signals sent through the real POST /v1/ingest
// (each event with an SDK id), and clip or snapshot uploads through POST /v1/ingest/clips.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { bearer, type Harness, type Org } from './harness.ts';
import { CHROME_WINDOWS_UA, hex32, postIngest } from './ingest-kit.ts';

export const hex16 = () => randomBytes(8).toString('hex');
export const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

export interface SignalSpec { type?: string; element?: string; page?: string }
export interface SeededSession { sid: string; vid: string; signalIds: string[] }

/** A live session: a pageview and the signals, each with an SDK id, sent as one batch. */
export async function seedSession(h: Harness, org: Org, signals: SignalSpec[] = [{}], options: { key?: string; page?: string; vid?: string } = {}): Promise<SeededSession> {
  const sid = hex32();
  const vid = options.vid ?? hex32();
  const now = h.clock.now();
  const page = options.page ?? '/checkout';
  const signalIds = signals.map(() => hex16());
  const events = [
    { type: 'pageview', ts: now - 8000, page, id: hex16() },
    ...signals.map((s, i) => ({
      type: 'signal', ts: now - 5000 + i, page: s.page ?? page, signal_type: s.type ?? 'rage_click', element: s.element ?? 'button.pay', label: 'Pay', confidence: 1, id: signalIds[i],
    })),
  ];
  const res = await postIngest(h, { key: options.key ?? org.keys.publishable, sid, vid, ts: now, meta: { ua: CHROME_WINDOWS_UA }, events });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().data.accepted, res.body).toBe(events.length);
  return { sid, vid, signalIds };
}

/** rrweb-shaped events: a Meta, a FullSnapshot of a small page holding `text`, and an incremental move. */
export function rrwebEvents(start: number, text = 'Pay now') {
  return [
    { type: 4, timestamp: start, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } },
    {
      type: 2, timestamp: start + 1, data: {
        node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [
          { type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [
            { type: 2, id: 4, tagName: 'button', attributes: { id: 'pay' }, childNodes: [{ type: 3, id: 5, textContent: text }] },
          ] },
        ] }] },
        initialOffset: { left: 0, top: 0 },
      },
    },
    { type: 3, timestamp: start + 500, data: { source: 1, positions: [{ x: 640, y: 360, id: 4, timeOffset: 0 }] } },
  ];
}

/** A valid clip body covering the session's signals (override any field). */
export function clipBody(h: Harness, org: Org, session: SeededSession, extra: Record<string, unknown> = {}) {
  const now = h.clock.now();
  return {
    key: org.keys.publishable, sid: session.sid, vid: session.vid, id: hex32(), kind: 'clip', page: '/checkout',
    meta: { viewport_w: 1280, viewport_h: 720, ua: CHROME_WINDOWS_UA }, signal_ids: session.signalIds,
    started_at: now - 10_000, ended_at: now, width: 1280, height: 720, events: rrwebEvents(now - 10_000), ...extra,
  };
}

/** A valid snapshot body (Meta + FullSnapshot) of the page. */
export function snapshotBody(h: Harness, org: Org, session: SeededSession, extra: Record<string, unknown> = {}) {
  const now = h.clock.now();
  return {
    key: org.keys.publishable, sid: session.sid, id: hex32(), kind: 'snapshot', page: '/checkout',
    meta: { viewport_w: 1280, viewport_h: 720, ua: CHROME_WINDOWS_UA }, started_at: now, ended_at: now, width: 1280, height: 2400,
    events: rrwebEvents(now).slice(0, 2), ...extra,
  };
}

/** POST /v1/ingest/clips: an object as JSON (gzip-encoded unless `gzip: false`), or raw text/bytes as given. */
export function postClip(h: Harness, body: unknown, options: { headers?: Record<string, string>; gzip?: boolean; token?: string } = {}) {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const gzip = options.gzip ?? typeof body === 'object';
  return h.app.inject({
    method: 'POST', url: '/v1/ingest/clips',
    headers: { 'content-type': 'text/plain', ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...(options.token ? bearer(options.token) : {}), ...options.headers },
    payload: gzip ? gzipSync(raw) : raw,
  });
}

/** Uploads and expects 202 with `stored` as given; returns the answer's data. */
export async function upload(h: Harness, body: unknown, stored = true) {
  const res = await postClip(h, body);
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().data.stored, res.body).toBe(stored);
  return res.json().data as { id: string; stored: boolean; reason?: string; clip_id?: string; bytes: number };
}

export async function clipCount(h: Harness, siteId: string, kind?: 'clip' | 'snapshot') {
  let q = h.store.db.selectFrom('clips').select((eb) => eb.fn.countAll<number | string>().as('n')).where('site_id', '=', siteId);
  if (kind) q = q.where('kind', '=', kind);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
