// What friction clips cost ordinary ingest (issue 28: less than 10 %). The real server (CLI
// child, SQLite file) takes 50-event batches on 16 connections, first alone, then while clip
// uploads arrive beside it: paced (20 a second, far more than the daily byte budget allows a
// site) and flooding (2 connections sending as fast as the server answers). Each loaded run is
// compared with the ingest-alone run just before it, on the same server and store, in
// alternating pairs whose median ratio is the figure. A clip is a
// realistic 15 s recording: an rrweb full snapshot of a 600-node page and 900 incremental
// events, about 150 KB of JSON, sent gzip-compressed as the SDK sends it.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { batchBody, benchStore, freePort, SECRET, startChild } from './ingest.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const INGEST_CONNECTIONS = 16;
const SESSIONS = 3000;
const CLIP_BODIES = 1000;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const sidOf = (n: number) => `c1${hex(n, 30)}`;
const signalIdOf = (n: number) => `5a${hex(n, 14)}`;

/** A session with a pageview and a rage click on an element of its own (so no element reaches its 5 clips). */
function sessionBody(key: string, n: number, now: number): string {
  return JSON.stringify({
    key, sid: sidOf(n), ts: now, meta: { ua: UA }, events: [
      { id: `0b${hex(n, 14)}`, type: 'pageview', ts: now - 20_000, page: '/checkout' },
      { id: signalIdOf(n), type: 'signal', ts: now - 10_000, page: '/checkout', signal_type: 'rage_click', element: `#pay-${n}`, label: 'Pay', confidence: 1 },
    ],
  });
}

/** rrweb-shaped events of a 15 s clip: Meta, a FullSnapshot of a 600-node page (text masked), moves, scrolls and clicks. */
function recording(start: number): unknown[] {
  let id = 10;
  const text = () => ({ type: 3, id: id++, textContent: '*'.repeat(8 + (id % 40)) });
  const element = (tag: string, children: unknown[], attributes: Record<string, string> = {}) => ({ type: 2, id: id++, tagName: tag, attributes, childNodes: children });
  const rows = Array.from({ length: 100 }, (_, i) => element('div', [element('span', [text()], { class: `row r${i % 7}` }), element('button', [text()], { class: 'btn', 'data-i': String(i) })], { class: 'item' }));
  const body = element('body', [element('main', rows, { id: 'main' })]);
  const events: unknown[] = [
    { type: 4, timestamp: start, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } },
    { type: 2, timestamp: start + 1, data: { node: { type: 0, id: 1, childNodes: [element('html', [element('head', []), body])] }, initialOffset: { left: 0, top: 0 } } },
  ];
  for (let i = 0; i < 900; i++) {
    const t = start + 10 + i * 16;
    if (i % 50 === 0) events.push({ type: 3, timestamp: t, data: { source: 3, id: 1, x: 0, y: i * 4 } });
    else if (i % 97 === 0) events.push({ type: 3, timestamp: t, data: { source: 2, type: 2, id: 20 + (i % 300), x: 600, y: 400 } });
    else events.push({ type: 3, timestamp: t, data: { source: 1, positions: [{ x: 300 + (i % 500), y: 200 + ((i * 7) % 400), id: 20 + (i % 300), timeOffset: -8 }] } });
  }
  return events;
}

function clipBody(key: string, n: number, now: number): Buffer {
  const session = n % SESSIONS;
  return gzipSync(JSON.stringify({
    key, sid: sidOf(session), id: `c11b${hex(n, 28)}`, kind: 'clip', page: '/checkout', meta: { viewport_w: 1280, viewport_h: 720, ua: UA },
    signal_ids: [signalIdOf(session)], started_at: now - 15_000, ended_at: now, width: 1280, height: 720, events: recording(now - 15_000),
  }));
}

let counter = 1;
async function ingest(port: number, key: string) {
  const now = Date.now();
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/v1/ingest`, method: 'POST', connections: INGEST_CONNECTIONS, duration: SECONDS,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: batchBody(key, counter++, now) }) }],
  });
  return { eventsPerSecond: r['2xx'] * 50 / SECONDS, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts };
}

let clipCounter = 0;
async function clips(port: number, bodies: Buffer[], pace: { connections: number; overallRate?: number }) {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/v1/ingest/clips`, method: 'POST', duration: SECONDS, timeout: 60, ...pace,
    headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    requests: [{ setupRequest: (req) => ({ ...req, body: bodies[clipCounter++ % bodies.length] }) }],
  });
  return { perSecond: r['2xx'] / SECONDS, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts };
}

export async function runClipsBench(): Promise<string> {
  const { dir, url, store, org } = await benchStore('mallard-bench-clips-');
  // The budgets are not what is measured: a budget no run reaches.
  await store.db.updateTable('sites').set({ clip_daily_bytes: 100 * 2 ** 30 }).where('id', '=', org.site_id).execute();
  const key = org.keys.publishable;
  const now = Date.now();
  const bodies = Array.from({ length: CLIP_BODIES }, (_, n) => clipBody(key, n, now));
  const rawSize = gunzipSync(bodies[0]).length;

  const port = await freePort();
  const server = await startChild([BIN, 'serve'], {
    DATABASE_URL: url, MALLARD_SECRET: SECRET, PORT: String(port), LOG_LEVEL: 'info', MALLARD_DEMO: '0', RATE_LIMIT_INGEST_PER_MIN: '100000000',
  }, /listening on/);
  const rows: string[] = [];
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' / ');
  try {
    let n = 0;
    await autocannon({
      url: `http://127.0.0.1:${port}/v1/ingest`, method: 'POST', connections: 8, amount: SESSIONS,
      headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: sessionBody(key, n++, now) }) }],
    });
    // The machine is shared: pairs alternate (alone, beside clips) so drift hits both alike,
    // and the figure is the median of the pairs' ratios.
    for (const [label, pace] of [
      ['paced: 20 clips a second', { connections: 2, overallRate: 20 }],
      ['flooding: 2 connections, as fast as answered', { connections: 2 }],
    ] as const) {
      const ratios: number[] = [];
      for (let pair = 1; pair <= PAIRS; pair++) {
        const before = load();
        const alone = await ingest(port, key);
        const [loaded, uploads] = await Promise.all([ingest(port, key), clips(port, bodies, pace)]);
        const ratio = loaded.eventsPerSecond / alone.eventsPerSecond;
        ratios.push(ratio);
        rows.push(`| ${label}, pair ${pair} | ${fmt(alone.eventsPerSecond)} | ${fmt(loaded.eventsPerSecond)} | ${(ratio * 100).toFixed(0)} % | ${alone.p99} / ${loaded.p99} | ${uploads.perSecond.toFixed(1)} | ${uploads.p99} | ${alone.non2xx + loaded.non2xx + uploads.non2xx} | ${before} |`);
      }
      const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
      rows.push(`| **${label}: median held** | | | **${(median * 100).toFixed(0)} %** | | | | | |`);
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
  }
  const stored = await store.db.selectFrom('clips').select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.avg<number>('bytes').as('bytes')]).executeTakeFirstOrThrow();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return [
    `SQLite (WAL), one server; ${SECONDS} s per run; ingest on ${INGEST_CONNECTIONS} connections (50-event batches); ${fmt(SESSIONS)} sessions seeded for clips to name. A clip: ${fmt(rawSize)} bytes of rrweb JSON, ${fmt(bodies[0].length)} gzip-compressed on the wire, ${fmt(Number(stored.bytes))} stored (brotli); ${fmt(Number(stored.n))} clips stored in all. Each pair: ingest alone, then ingest with clip uploads beside it, back to back; ${PAIRS} pairs per pace, the median ratio last.`,
    '',
    '| clip uploads | ingest alone, events/s | ingest with clips, events/s | held | ingest p99 ms alone / with clips | clips answered 202/s | clip p99 ms | non-2xx | load average before (1 / 5 / 15 min) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

