// Ingest throughput: many concurrent clients POST 50-event batches to the real server (the
// CLI in a child process, SQLite store). Measured in the same run: the same bodies against a
// bare Fastify route (HTTP + JSON ceiling), and a raw bulk insert of the same rows into the
// same store (storage ceiling). The figures are events stored per second and their ratios.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { v7 as uuidv7 } from 'uuid';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { prepareEvents } from '../src/ingest/prepare.ts';
import { openStore, sqliteHandleOf } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const EVENTS_PER_BATCH = 50;
export const SECRET = 'bench-secret-bench-secret-bench-secret-00';
const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const TSX = resolve(import.meta.dirname, '../../../node_modules/tsx/dist/cli.mjs');

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** A realistic 50-event batch, unique per counter value so nothing is deduplicated. */
export function batchBody(key: string, n: number, now: number): string {
  const sid = hex(n, 32);
  const events: unknown[] = [];
  for (let i = 0; i < EVENTS_PER_BATCH; i++) {
    const ts = now - (EVENTS_PER_BATCH - i) * 1000;
    const id = `${hex(n, 24)}${hex(i, 8)}`;
    if (i % 5 === 0) events.push({ id, type: 'pageview', ts, page: `/products/${1000 + (i % 7)}`, referrer_page: '/search' });
    else if (i % 5 === 4) events.push({ id, type: 'track', ts, page: '/checkout', name: 'add_to_cart', props: { amount_cents: 1999 } });
    else events.push({
      id, type: 'signal', ts, page: '/checkout', signal_type: i % 2 ? 'rage_click' : 'dead_click', element: 'button.pay',
      label: 'Pay now', confidence: 0.9, hx: 512, hy: 480, vx: 700, vy: 300,
    });
  }
  return JSON.stringify({ key, sid, vid: hex(n % 5000, 32), url: 'https://shop.example/checkout', ts: now, meta: { viewport_w: 1280, viewport_h: 720, ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' }, events });
}

export async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => done(port));
    });
  });
}

export async function startChild(args: string[], env: Record<string, string>, readyPattern: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((done, fail) => {
    let out = '';
    const onData = (chunk: Buffer) => { out += chunk; if (readyPattern.test(out)) done(); };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`child exited with ${code}: ${out}`)));
  });
  return child;
}

async function load(port: number, key: string, firstCounter: number) {
  let counter = firstCounter;
  const now = Date.now();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/ingest`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: batchBody(key, counter++, now) }) }],
  });
  return { requests: result.requests.total, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** A fresh migrated SQLite store in a temporary directory, with one org (its site and keys). */
export async function benchStore(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const url = `sqlite:${join(dir, 'bench.db')}`;
  const store = openStore(url);
  await migrateToLatest(store.db);
  const org = await bootstrapOrg(store, new Secrets(SECRET), { org: 'Bench', siteName: 'Bench', siteUrl: 'https://shop.example', email: 'bench@example.com', password: 'bench-password' }, Date.now());
  return { dir, url, store, org };
}

export async function runIngestBench(): Promise<string> {
  const { dir, url, store, org } = await benchStore('mallard-bench-');

  // 1. Baseline: bare Fastify route, same bodies.
  const barePort = await freePort();
  const bare = await startChild([TSX, resolve(import.meta.dirname, 'bare-server.ts')], { PORT: String(barePort) }, /ready/);
  const bareRun = await load(barePort, org.keys.publishable, 1);
  bare.kill('SIGTERM');

  // 2. The real server.
  const port = await freePort();
  const server = await startChild([BIN, 'serve'], {
    DATABASE_URL: url, MALLARD_SECRET: SECRET, PORT: String(port), LOG_LEVEL: 'info', MALLARD_DEMO: '0',
    RATE_LIMIT_INGEST_PER_MIN: '100000000',
  }, /listening on/);
  const before = Date.now();
  const real = await load(port, org.keys.publishable, 10_000_000);
  const elapsed = (Date.now() - before) / 1000;
  server.kill('SIGTERM');
  await new Promise((done) => server.once('exit', done));
  const stored = Number((await store.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const storedRate = stored / elapsed;

  // 3. Raw bulk insert of the same rows (events and their signals) into the same store.
  const rawSite = org.site_id;
  const batches = Math.max(1, Math.min(Math.ceil(stored / EVENTS_PER_BATCH), 4000));
  const now = Date.now();
  const rows: { events: object[]; signals: object[] } = { events: [], signals: [] };
  for (let b = 0; b < batches; b++) {
    const body = JSON.parse(batchBody('k', 50_000_000 + b, now));
    const { events } = prepareEvents(body, { now, import: false, pageGroups: [] });
    for (const e of events) {
      const id = uuidv7();
      rows.events.push({ id, site_id: rawSite, sid: body.sid, visitor_id: body.vid, type: e.type, page: e.page, occurred_at: e.occurredAt, client_ts: e.clientTs, received_at: now, dedupe_key: e.dedupeKey, name: e.name, signal_type: e.signalType, element: e.element, label: e.label, props: e.props, referrer_page: e.referrerPage, environment: 'production' });
      if (e.signal) rows.signals.push({ id: uuidv7(), site_id: rawSite, event_id: id, sid: body.sid, visitor_id: body.vid, signal_type: e.signalType, page: e.page, element: e.element ?? '', label: e.label, confidence: e.signal.confidence, occurred_at: e.occurredAt, rx: e.signal.rx, ry: e.signal.ry, vx: e.signal.vx, vy: e.signal.vy, environment: 'production' });
    }
  }
  const rawStart = process.hrtime.bigint();
  const CHUNK = 500;
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.events.length; i += CHUNK) await trx.insertInto('events').values(rows.events.slice(i, i + CHUNK) as never).execute();
    for (let i = 0; i < rows.signals.length; i += CHUNK) await trx.insertInto('signals').values(rows.signals.slice(i, i + CHUNK) as never).execute();
  });
  const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
  const rawRate = rows.events.length / rawSeconds;

  // 4. The same rows through statements prepared once, a row at a time (what ingest now does on
  // SQLite), into a fresh copy of the tables so the b-trees start the same size as in step 3.
  const file = sqliteHandleOf(store.db)!;
  file.exec('create table events_copy as select * from events where 0; create table signals_copy as select * from signals where 0;');
  for (const [table, copy] of [['events', 'events_copy'], ['signals', 'signals_copy']]) {
    for (const { sql: create } of file.prepare(`select sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`).all(table) as { sql: string }[]) {
      file.exec(create.replace(/create (unique )?index "?(\w+)"? on "?\w+"?/i, (_m, u, name) => `create ${u ?? ''}index ${name}_copy on ${copy}`));
    }
    // The primary key and the dedupe constraint are automatic indexes in the originals.
    file.exec(`create unique index ${copy}_pk on ${copy} (id)`);
  }
  file.exec('create unique index events_copy_dedupe on events_copy (site_id, sid, dedupe_key)');
  const eventColumns = Object.keys(rows.events[0]);
  const signalColumns = Object.keys(rows.signals[0]);
  const insertEvent = file.prepare(`insert into events_copy (${eventColumns.join(', ')}) values (${eventColumns.map(() => '?').join(', ')}) on conflict do nothing returning id`);
  const insertSignal = file.prepare(`insert into signals_copy (${signalColumns.join(', ')}) values (${signalColumns.map(() => '?').join(', ')})`);
  const preparedStart = process.hrtime.bigint();
  file.transaction(() => {
    for (const row of rows.events) insertEvent.get(Object.values(row));
    for (const row of rows.signals) insertSignal.run(Object.values(row));
  })();
  const preparedRate = rows.events.length / (Number(process.hrtime.bigint() - preparedStart) / 1e9);

  // 5. The floor of any row store here: one row per event into a minimal table, the id as its
  // only key (WITHOUT ROWID, so one b-tree) and the rest as one JSON text column.
  file.exec('create table minimal (id text primary key, body text not null) without rowid');
  const insertMinimal = file.prepare('insert into minimal (id, body) values (?, ?)');
  const minimalStart = process.hrtime.bigint();
  file.transaction(() => { for (const row of rows.events as { id: string }[]) insertMinimal.run(row.id, JSON.stringify(row)); })();
  const minimalRate = rows.events.length / (Number(process.hrtime.bigint() - minimalStart) / 1e9);
  await store.close();
  rmSync(dir, { recursive: true, force: true });

  const bareEvents = bareRun.rps * EVENTS_PER_BATCH;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    `${CONNECTIONS} connections, ${SECONDS} s per run, ${EVENTS_PER_BATCH}-event batches (30 signals, 10 pageviews, 10 tracks), SQLite (WAL).`,
    '',
    '| run | batches/s | events/s | p50 ms | p99 ms | non-2xx |',
    '|---|---|---|---|---|---|',
    `| bare Fastify route, same bodies (HTTP + JSON ceiling) | ${fmt(bareRun.rps)} | ${fmt(bareEvents)} | ${bareRun.p50} | ${bareRun.p99} | ${bareRun.non2xx} |`,
    `| Mallard POST /v1/ingest, events stored | ${fmt(real.rps)} | ${fmt(storedRate)} | ${real.p50} | ${real.p99} | ${real.non2xx} |`,
    `| raw bulk insert of the same rows (events + signals, 500-row statements, one transaction) | | ${fmt(rawRate)} | | | |`,
    `| the same rows through prepared row-at-a-time statements, same indexes, one transaction | | ${fmt(preparedRate)} | | | |`,
    `| raw insert into a minimal table (id key WITHOUT ROWID + JSON body; one b-tree per event, no signals) | | ${fmt(minimalRate)} | | | |`,
    '',
    `- Stored by ingest: ${fmt(stored)} events in ${elapsed.toFixed(1)} s.`,
    `- Ingest / raw bulk insert: **${(storedRate / rawRate * 100).toFixed(0)} %**; ingest / prepared insert: **${(storedRate / preparedRate * 100).toFixed(0)} %**; ingest / minimal table: **${(storedRate / minimalRate * 100).toFixed(0)} %**; ingest / bare route: **${(storedRate / bareEvents * 100).toFixed(0)} %**.`,
  ].join('\n');
}
