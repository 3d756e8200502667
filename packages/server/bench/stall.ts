// Does a slow read stall ingest? The real server (CLI child, SQLite file seeded with about
// 100,000 events through ingest) takes 50-event batches on 16 connections, first alone, then
// while 8 more connections keep requesting heavy reads (journeys/friction and page). Run once
// with the read pool off (MALLARD_SQLITE_READERS=0, every read on the main thread: before) and
// once with it on (the default: after). The figure that matters is the ratio of ingest with
// reads to ingest alone, each pair measured back to back on the same store.
import { resolve } from 'node:path';
import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { batchBody, benchStore, freePort, SECRET, startChild } from './ingest.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SEED_BATCHES = Number(process.env.BENCH_SEED_BATCHES ?? 2000);
const INGEST_CONNECTIONS = 16;
const READ_CONNECTIONS = 8;
const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
let counter = 1;

async function ingest(port: number, key: string, seconds: number, connections = INGEST_CONNECTIONS) {
  const now = Date.now();
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/v1/ingest`, method: 'POST', connections, duration: seconds,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: batchBody(key, counter++, now) }) }],
  });
  return { eventsPerSecond: (r.requests.total - r.non2xx) * 50 / seconds, p99: r.latency.p99, non2xx: r.non2xx };
}

async function heavyReads(port: number, token: string, seconds: number) {
  const headers = { authorization: `Bearer ${token}` };
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`, connections: READ_CONNECTIONS, duration: seconds, timeout: 60,
    requests: [
      { method: 'GET', path: '/v1/query/journeys/friction', headers },
      { method: 'GET', path: '/v1/query/page?page=/checkout', headers },
    ],
  });
  return { rps: (r.requests.total - r.non2xx) / seconds, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts };
}

async function withServer<T>(url: string, readers: number, run: (port: number) => Promise<T>): Promise<T> {
  const port = await freePort();
  const server = await startChild([BIN, 'serve'], {
    DATABASE_URL: url, MALLARD_SECRET: SECRET, PORT: String(port), LOG_LEVEL: 'info', MALLARD_DEMO: '0',
    RATE_LIMIT_INGEST_PER_MIN: '100000000', RATE_LIMIT_QUERY_PER_MIN: '10000000', MALLARD_SQLITE_READERS: String(readers),
  }, /listening on|ready/i);
  try {
    return await run(port);
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
  }
}

export async function runStallBench(): Promise<string> {
  const { dir, url, store, org } = await benchStore('mallard-bench-stall-');
  await store.close();
  const key = org.keys.publishable;
  const token = org.keys.secret;

  // Seed: enough history that the reads cost something.
  await withServer(url, 2, async (port) => {
    const now = Date.now();
    await autocannon({
      url: `http://127.0.0.1:${port}/v1/ingest`, method: 'POST', connections: 16, amount: SEED_BATCHES,
      headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: batchBody(key, counter++, now) }) }],
    });
  });

  const rows: string[] = [];
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  for (const [label, readers] of [['before: reads on the main thread (MALLARD_SQLITE_READERS=0)', 0], ['after: read pool, 2 reader threads (default)', 2]] as const) {
    await withServer(url, readers, async (port) => {
      const alone = await ingest(port, key, SECONDS);
      const [loaded, reads] = await Promise.all([ingest(port, key, SECONDS), heavyReads(port, token, SECONDS)]);
      rows.push(`| ${label} | ${fmt(alone.eventsPerSecond)} | ${fmt(loaded.eventsPerSecond)} | **${(loaded.eventsPerSecond / alone.eventsPerSecond * 100).toFixed(0)} %** | ${alone.p99} / ${loaded.p99} | ${reads.rps.toFixed(1)} | ${reads.p50} / ${reads.p99} | ${alone.non2xx + loaded.non2xx + reads.non2xx} |`);
    });
  }
  if (process.env.BENCH_KEEP) console.error(`kept ${url}, query token ${token}`);
  else rmSync(dir, { recursive: true, force: true });
  return [
    `SQLite (WAL) file seeded with ${fmt(SEED_BATCHES * 50)} events through ingest; ${SECONDS} s per run; ingest on ${INGEST_CONNECTIONS} connections (50-event batches), heavy reads on ${READ_CONNECTIONS} more (journeys/friction and page?page=/checkout, alternating). Each row's two ingest runs are back to back on the same server and store.`,
    '',
    '| server | ingest alone, events/s | ingest with heavy reads, events/s | held | ingest p99 ms alone / with reads | heavy reads/s | read p50 / p99 ms | non-2xx |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
