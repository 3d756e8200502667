// Read routes against dataset size (issue 17, items 1 and 7). For each dialect and size: the
// deterministic dataset of bench/dataset.ts (built once, then cached), `mallard serve
// --no-worker` on it, and every GET /v1/query/* operation of the served OpenAPI document at 32
// connections, each right after the same load on a bare Fastify GET route in another process,
// so each route's share of the bare route is measured next to it; then the same load on a
// second server with the read cache off (MALLARD_READ_CACHE_MS=0), whose sequential "alone"
// requests give what each answer costs to compute. Also the server's peak RSS (VmHWM) and cold
// start: process start to the first 200 from /readyz (median of 3).
//
//   npm run bench -- reads                                     100k and 1M signals on SQLite
//   npm run bench -- reads --sizes 100k --dialects sqlite,postgres --database-url postgres://...
//   npm run bench -- reads --routes scores,page,issues          only these operations
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Dialect } from '../src/store/db.ts';
import { BENCH_SECRET, ensureDataset, SIZES, type Dataset } from './dataset.ts';
import { freePort, startChild } from './ingest.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Sequential requests timed for "alone" (the export: a download of every event, tens of seconds at 10M). */
const ALONE_RUNS = 11;
const ALONE_RUNS_EXPORT = 3;
const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const TSX = resolve(import.meta.dirname, '../../../node_modules/tsx/dist/cli.mjs');
const HOUR = 60 * 60 * 1000;
/** The funnel the bench asks /v1/query/funnel for (60-minute window, the last 7 days). */
export const FUNNEL_STEPS = '/,/products/*,/cart,/checkout';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Measure { rps: number; p50: number; p99: number; bad: number; completed: number }
interface RouteResult {
  route: string; bare: Measure | null; real: Measure | null; fresh: Measure | null; aloneMs: number; rss: RssPeak;
  /** The answer's size, and the bare route sending a prebuilt body of that size (for large answers). */
  bytes: number; sameBytes: Measure | null;
  /** The export's CSV rows. */
  rows?: number;
}
/** Answers at least this large are also measured against a bare route sending as many bytes. */
const LARGE_ANSWER_BYTES = 4096;
/** The most anonymous and file-backed RSS the measured server held while one route ran, in MB. */
interface RssPeak { anonMb: number; fileMb: number }
interface RunResult { dialect: Dialect; size: string; dataset: Dataset; routes: RouteResult[]; peakRssMb: number; endRss: { anonMb: number; fileMb: number }; coldStartMs: number[]; load: string }

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '100k,1m' },
      dialects: { type: 'string' },
      'database-url': { type: 'string' },
      seed: { type: 'string', default: 'mallard' },
      routes: { type: 'string' },
    },
  });
  const sizes = values.sizes.split(',').map((s) => s.trim().toLowerCase());
  for (const size of sizes) if (!SIZES[size]) throw new Error(`unknown size ${size}; one of ${Object.keys(SIZES).join(', ')}`);
  const dialects = (values.dialects ?? (values['database-url'] ? 'sqlite,postgres' : 'sqlite')).split(',').map((d) => d.trim()) as Dialect[];
  if (dialects.includes('postgres') && !values['database-url']) throw new Error('--dialects postgres needs --database-url postgres://...');
  // --routes scores,page,...: only the operations whose path after /v1/query/ starts with one of these.
  const routes = values.routes?.split(',').map((r) => r.trim()).filter(Boolean) ?? null;
  return { sizes, dialects, databaseUrl: values['database-url'], seed: values.seed, routes };
}

async function measure(url: string, headers: Record<string, string>): Promise<Measure> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers, timeout: 30 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts, completed: r.requests.total };
}

/**
 * One request at a time: the route's own cost without queueing. The first request is not
 * timed (it compiles the route's validators and serializers and fills the caches of a freshly
 * started server: a start-up cost, up to hundreds of ms, that was one of the 5 timed before);
 * then the median of `runs`.
 */
async function alone(url: string, headers: Record<string, string>, runs: number): Promise<number> {
  await (await fetch(url, { headers })).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await (await fetch(url, { headers })).arrayBuffer();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}

/** A field of /proc/<pid>/status in MB. */
function statusMb(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.match(/\d+/)?.[0] ?? 0) / 1024);
}
const peakRssMb = (pid: number) => statusMb(pid, 'VmHWM');

/** Samples a process's anonymous and file-backed RSS every 100 ms until stopped: their highest values. */
function sampleRss(pid: number): () => RssPeak {
  const peak: RssPeak = { anonMb: 0, fileMb: 0 };
  const sample = () => {
    try {
      peak.anonMb = Math.max(peak.anonMb, statusMb(pid, 'RssAnon'));
      peak.fileMb = Math.max(peak.fileMb, statusMb(pid, 'RssFile'));
    } catch { /* the process has exited */ }
  };
  sample();
  const timer = setInterval(sample, 100).unref();
  return () => { clearInterval(timer); sample(); return peak; };
}

function serverEnv(dataset: Dataset, port: number, readCacheMs: string | undefined): Record<string, string> {
  return {
    DATABASE_URL: dataset.url, MALLARD_SECRET: BENCH_SECRET, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    MALLARD_DEMO: '0', RATE_LIMIT_QUERY_PER_MIN: '10000000', RATE_LIMIT_MANAGE_PER_MIN: '10000000',
    ...(readCacheMs === undefined ? {} : { MALLARD_READ_CACHE_MS: readCacheMs }),
  };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
}

/**
 * Spawns `mallard serve --no-worker` on the dataset and waits for its first 200 from /readyz;
 * the milliseconds from spawn to that answer are the cold start.
 */
async function startServer(dataset: Dataset, readCacheMs?: string): Promise<{ child: ChildProcess; port: number; readyMs: number }> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'serve', '--no-worker'], { env: { ...process.env, ...serverEnv(dataset, port, readCacheMs) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return { child, port, readyMs: Number(process.hrtime.bigint() - started) / 1e6 };
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Values for the read routes' parameters, from the dataset; an unknown required one stops the run. */
function routePaths(doc: { paths: Record<string, { get?: { parameters?: { in: string; name: string; required?: boolean }[] } }> }, dataset: Dataset, only: string[] | null): string[] {
  const p = dataset.params;
  const values: Record<string, string> = {
    page: p.page, element: p.element, selector: p.element, session_id: p.sessionId, days: '7', limit: '20', table: 'signals',
    a: p.page, b: p.otherPage, min_friction_weight: '0', issue_id: p.issueId ?? '', alert_id: p.alertId, deploy_id: p.deployId,
    // The ad-hoc 4-step funnel (issue 29): from the busiest page through a product page (a
    // wildcard step) and the cart to checkout, pages every site of the dataset has.
    steps: FUNNEL_STEPS,
  };
  // Optional parameters the bench sets: trends over its longest span (issue 17 names days=90).
  const optional: Record<string, Record<string, string>> = { '/v1/query/trends': { days: '90' } };
  const paths: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/query/') || !item.get) continue;
    if (only && !only.some((r) => path.startsWith(`/v1/query/${r}`))) continue;
    // The datasets hold no clips (their uploads are measured by `npm run bench -- clips`), so one clip and a page's snapshot have nothing to read.
    if (path === '/v1/query/clips/{id}' || path === '/v1/query/page-snapshot') continue;
    let filled = path;
    const query = new URLSearchParams();
    for (const param of item.get.parameters ?? []) {
      if (param.in === 'path') {
        if (!values[param.name]) throw new Error(`${path}: no value for path parameter ${param.name}`);
        filled = filled.replace(`{${param.name}}`, encodeURIComponent(values[param.name]));
      } else if (param.in === 'query' && param.required) {
        if (!(param.name in values)) throw new Error(`${path} requires "${param.name}"; add a value in bench/reads.ts`);
        query.set(param.name, values[param.name]);
      }
    }
    for (const [name, value] of Object.entries(optional[path] ?? {})) query.set(name, value);
    paths.push(`${filled}${query.size ? `?${query}` : ''}`);
  }
  return paths;
}

async function runOne(dialect: Dialect, size: string, seed: string, databaseUrl: string | undefined, barePort: number, only: string[] | null): Promise<RunResult> {
  const endAt = Math.floor(Date.now() / HOUR) * HOUR;
  const dataset = await ensureDataset({ dialect, signals: SIZES[size], seed, endAt, baseUrl: databaseUrl }, (line) => console.error(line));
  const coldStartMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { child, readyMs } = await startServer(dataset);
    coldStartMs.push(readyMs);
    await stop(child);
  }
  const { child: server, port } = await startServer(dataset);
  // The same server with the read cache off, beside it: what each answer costs to compute.
  const { child: freshServer, port: freshPort } = await startServer(dataset, '0');
  const routes: RouteResult[] = [];
  try {
    const base = `http://127.0.0.1:${port}`;
    const freshBase = `http://127.0.0.1:${freshPort}`;
    const doc = await (await fetch(`${base}/v1/openapi.json`)).json();
    const headers = { authorization: `Bearer ${dataset.secretKey}` };
    await measure(`http://127.0.0.1:${barePort}/v1/query/bare`, {}); // warm-up, not reported
    for (const path of routePaths(doc, dataset, only)) {
      const stopSampling = sampleRss(server.pid!);
      const check = await fetch(`${base}${path}`, { headers });
      if (check.status !== 200) throw new Error(`GET ${path} answered ${check.status}: ${(await check.text()).slice(0, 300)}`);
      const body = new Uint8Array(await check.arrayBuffer().catch(() => new ArrayBuffer(0)));
      const bytes = body.byteLength;
      const aloneMs = await alone(`${freshBase}${path}`, headers, path.includes('/export/') ? ALONE_RUNS_EXPORT : ALONE_RUNS);
      // The export streams every event of the site (no from/to): 32 of them at once outlive the
      // run and keep the server busy through the next routes' runs, so it is measured alone only.
      if (path.includes('/export/')) {
        const rows = body.reduce((n, byte) => (byte === 10 ? n + 1 : n), 0) - 1;
        console.error(`${dialect} ${size} ${path}: ${rows} rows, alone ${aloneMs.toFixed(0)} ms (not under load), ${Math.round(rows / aloneMs * 1000)} rows/s`);
        routes.push({ route: path, bare: null, real: null, fresh: null, aloneMs, rss: stopSampling(), bytes, sameBytes: null, rows });
        continue;
      }
      const bare = await measure(`http://127.0.0.1:${barePort}/v1/query/bare`, {});
      const real = await measure(`${base}${path}`, headers);
      const fresh = await measure(`${freshBase}${path}`, headers);
      // What sending an answer this large costs by itself: a prebuilt body of the same size.
      const sameBytes = bytes >= LARGE_ANSWER_BYTES ? await measure(`http://127.0.0.1:${barePort}/v1/query/bare-bytes/${bytes}`, {}) : null;
      // autocannon stops sending at the end of a run, but a slow route's queued requests are
      // still being answered: one more request to each server waits behind them (the readers
      // take requests in order), so the next route's runs start on idle servers.
      await Promise.all([base, freshBase].map(async (b) => (await fetch(`${b}${path}`, { headers })).arrayBuffer()));
      const rss = stopSampling();
      console.error(`${dialect} ${size} ${path}: ${real.rps.toFixed(0)} req/s (bare ${bare.rps.toFixed(0)}, cache off ${fresh.rps.toFixed(0)}), p50 ${real.p50} p99 ${real.p99}, alone ${aloneMs.toFixed(0)} ms, RSS up to ${rss.anonMb} + ${rss.fileMb} MB`);
      routes.push({ route: path, bare, real, fresh, aloneMs, rss, bytes, sameBytes });
    }
    // RSS counts the readers' mmap view of the database file (OS page cache, shared and
    // reclaimable) as well as the process's own memory: the two apart, at the end of the run.
    const endRss = { anonMb: statusMb(server.pid!, 'RssAnon'), fileMb: statusMb(server.pid!, 'RssFile') };
    return { dialect, size, dataset, routes, peakRssMb: peakRssMb(server.pid!), endRss, coldStartMs, load: loadavg().map((l) => l.toFixed(1)).join(', ') };
  } finally {
    await stop(server);
    await stop(freshServer);
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** The route as its operation: path parameters back to their names, query values dropped. */
const operation = (path: string) => path.split('?')[0].replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}$/, (m) => (path.includes('/issues/') ? '/{issue_id}' : path.includes('/alerts/') ? '/{alert_id}' : '/{deploy_id}'));

function table(run: RunResult): string {
  const lines = [
    `#### ${run.dialect}, ${run.size} signals`,
    '',
    `Dataset: ${Object.entries(run.dataset.counts).map(([t, n]) => `${fmt(n)} ${t}`).join(', ')}; ${run.dataset.siteIds.length} sites, 90 days (built in ${fmt(run.dataset.buildSeconds)} s). Peak server RSS **${run.peakRssMb} MB** (at the end: ${run.endRss.anonMb} MB anonymous, ${run.endRss.fileMb} MB file-backed); cold start to the first 200 from /readyz **${fmt(median(run.coldStartMs))} ms** (median of ${run.coldStartMs.map(fmt).join(' / ')}); load average at the end ${run.load}.`,
    '',
    '| route | req/s | bare req/s | share of bare | p50 ms | p99 ms | bare p50 / p99 ms | cache off: req/s, share, p99 ms | alone ms (cache off) | answer bytes | bare sending as many bytes: req/s, route\'s share of it | answered | non-2xx/errors | RSS MB, anonymous + file-backed (highest while it ran) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  // A route slower than the run answers nothing in it: its latencies are then unknown, not 0.
  const p99 = (m: Measure) => (m.completed > 0 ? String(m.p99) : `> ${SECONDS * 1000}`);
  for (const r of run.routes) {
    if (!r.real || !r.bare || !r.fresh) {
      lines.push(`| \`${r.route}\` | | | | | | | | ${fmt(r.aloneMs)} | ${fmt(r.bytes)}${r.rows === undefined ? '' : ` (${fmt(r.rows)} rows)`} | | | | ${r.rss.anonMb} + ${r.rss.fileMb} |`);
      continue;
    }
    const latency = r.real.completed > 0 ? `${r.real.p50} | ${r.real.p99}` : `> ${SECONDS * 1000} | > ${SECONDS * 1000}`;
    const off = `${fmt(r.fresh.rps)}, ${(r.fresh.rps / r.bare.rps * 100).toFixed(1)} %, ${p99(r.fresh)}`;
    const same = r.sameBytes ? `${fmt(r.sameBytes.rps)}, ${(r.real.rps / r.sameBytes.rps * 100).toFixed(1)} %` : '';
    lines.push(`| \`${r.route}\` | ${fmt(r.real.rps)} | ${fmt(r.bare.rps)} | ${(r.real.rps / r.bare.rps * 100).toFixed(1)} % | ${latency} | ${r.bare.p50} / ${r.bare.p99} | ${off} | ${fmt(r.aloneMs)} | ${fmt(r.bytes)} | ${same} | ${r.real.completed + r.fresh.completed} | ${r.real.bad + r.fresh.bad} | ${r.rss.anonMb} + ${r.rss.fileMb} |`);
  }
  return lines.join('\n');
}

/**
 * Each route's cost alone at every size, and the largest size's over the smallest's and over the
 * one before it (a route capped at N rows reaches its cap between sizes), per dialect.
 */
function scaling(runs: RunResult[]): string {
  const out: string[] = [];
  for (const dialect of new Set(runs.map((r) => r.dialect))) {
    const mine = runs.filter((r) => r.dialect === dialect).sort((a, b) => a.dataset.signals - b.dataset.signals);
    if (mine.length < 2) continue;
    const [small, before, large] = [mine[0], mine.at(-2)!, mine.at(-1)!];
    const sizes = mine.map((m) => m.size);
    out.push(`#### ${dialect}: alone (cache off) at ${sizes.join(', ')}`, '',
      `| route | ${sizes.map((size) => `alone ${size} ms`).join(' | ')} | ${large.size} / ${small.size} |${mine.length > 2 ? ` ${large.size} / ${before.size} |` : ''} share of bare ${sizes.join(' / ')} |`,
      `|---|${sizes.map(() => '---|').join('')}---|${mine.length > 2 ? '---|' : ''}---|`);
    const share = (x: RouteResult | undefined) => (x?.real && x.bare ? `${(x.real.rps / x.bare.rps * 100).toFixed(1)} %` : 'alone only');
    for (const r of large.routes) {
      const at = mine.map((m) => m.routes.find((x) => operation(x.route) === operation(r.route)));
      if (at.some((x) => !x)) continue;
      const ratio = (x: RouteResult) => `${(r.aloneMs / x.aloneMs).toFixed(2)}x`;
      out.push(`| \`${operation(r.route)}\` | ${at.map((x) => fmt(x!.aloneMs)).join(' | ')} | ${ratio(at[0]!)} |${mine.length > 2 ? ` ${ratio(at.at(-2)!)} |` : ''} ${at.map(share).join(' / ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

export async function runReadsBench(argv: string[] = []): Promise<string> {
  const { sizes, dialects, databaseUrl, seed, routes: only } = parse(argv);
  const barePort = await freePort();
  const bare = await startChild([TSX, resolve(import.meta.dirname, 'bare-server.ts')], { PORT: String(barePort) }, /ready/);
  const runs: RunResult[] = [];
  try {
    for (const dialect of dialects) {
      for (const size of sizes) {
        runs.push(await runOne(dialect, size, seed, databaseUrl, barePort, only));
        // Each table as soon as it is measured, so a long run that stops early keeps its results.
        console.error(`\n${table(runs.at(-1)!)}\n`);
      }
    }
  } finally {
    await stop(bare);
  }
  return [
    `${only ? `The GET /v1/query/* operations of the served OpenAPI document starting with ${only.map((r) => `/v1/query/${r}`).join(', ')} (\`--routes\`)` : 'Every GET /v1/query/* operation of the served OpenAPI document'}, ${CONNECTIONS} connections, ${SECONDS} s each, right after ${SECONDS} s on a bare Fastify GET route (another process, same machine); \`mallard serve --no-worker\` with rate limits raised, and the same with the read cache off (\`MALLARD_READ_CACHE_MS=0\`) beside it: "cache off" is its run right after, "alone" the median of ${ALONE_RUNS} sequential requests to it after one untimed (what an answer costs to compute; ${ALONE_RUNS_EXPORT} for the export); seed \`${seed}\`. Latencies in ms (autocannon's p50 and p99).`,
    '',
    ...runs.map(table).flatMap((t) => [t, '']),
    scaling(runs),
  ].join('\n');
}
