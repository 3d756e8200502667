// Deterministic read-bench datasets: one org with several sites, 90 days of sessions, events
// (pageviews and signals) and signals, plus deploys, alerts and score history, written straight
// into the store in bulk (no ingest), then the last pipeline cycles run so scores and issues
// exist. The rows are a pure function of (signal count, seed, end time); the org, its keys and
// what the cycles write carry random ids and are not part of that promise.
// Datasets are cached by (dialect, size, seed): a SQLite file, or a PostgreSQL database, plus a
// JSON file of what the bench needs to address them (ids and a secret key); one more than a day
// older than the run's end time is rebuilt.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { insertSite } from '../src/features/sites/service.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import { Prng } from '../src/simulate/prng.ts';
import { openStore, type Dialect } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { weightResolver } from '../src/domain/signals.ts';
import { backfillSessionPaths } from '../src/store/migrations/0022-session-path.ts';

const registryWeight = weightResolver();

/** Bumped when the generator changes, so cached datasets of an older generator are rebuilt. */
export const DATASET_VERSION = 2;
export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-00';
export const DAY = 24 * 60 * 60 * 1000;
const INTERVAL = 15 * 60 * 1000;
const DAYS = 90;
/** Share of the traffic per site: one big site, a few smaller ones. */
const SITE_WEIGHTS = [0.55, 0.25, 0.15, 0.05];
const PAGES_PER_SITE = 200;
const SIGNALS_PER_SESSION = 4;
/** Pages per site with an hourly score history over the whole 90 days. */
const HISTORY_PAGES = 20;
const SIGNAL_TYPES: [string, number][] = [
  ['rage_click', 20], ['dead_click', 25], ['disabled_element_attempt', 6], ['form_abandonment', 8], ['error_encounter', 6],
  ['u_turn_navigation', 8], ['thrash_cursor', 8], ['scroll_depth_abandon', 10], ['form_validation_loop', 4], ['help_hunt', 5],
];
const HEATMAP_TYPES = new Set(['rage_click', 'dead_click', 'disabled_element_attempt']);
const ELEMENT_KINDS = ['button.pay', 'button.submit', 'a.nav-link', 'input#email', 'button.add-to-cart', 'div.card', 'select#size', 'a.help', 'button.close', 'input#search', 'span.price', 'img.hero'];
const DEVICES: [string, string, string, string][] = [['desktop', 'Chrome', 'Windows', 'xl'], ['desktop', 'Firefox', 'Linux', 'lg'], ['mobile', 'Safari', 'iOS', 'xs'], ['mobile', 'Chrome', 'Android', 'sm'], ['tablet', 'Safari', 'iOS', 'md']];

export interface DatasetSpec { dialect: Dialect; signals: number; seed: string; endAt: number; baseUrl?: string }

export interface Dataset {
  version: number;
  url: string;
  name: string;
  signals: number;
  seed: string;
  endAt: number;
  secretKey: string;
  siteIds: string[];
  /** Real values for the read routes' parameters, from the first (largest) site. */
  params: { page: string; otherPage: string; element: string; sessionId: string; issueId: string | null; alertId: string; deployId: string };
  counts: Record<string, number>;
  buildSeconds: number;
  /** PostgreSQL: the rows were put in time order on disk, as ingest writes them (orderLikeIngest). */
  timeOrdered?: boolean;
}

/** Rows written by the generator, per table, as column names and value arrays. */
export interface Sink {
  insert(table: string, columns: string[], rows: unknown[][]): Promise<void>;
  close(): Promise<void>;
}

/** A page list per site: a few funnel pages and many product and article pages. */
function pagesOf(site: number): string[] {
  const fixed = ['/', '/checkout', '/cart', '/search', '/account', '/signup', '/login', '/pricing', '/checkout/shipping', '/checkout/payment'];
  const pages = [...fixed];
  for (let i = 0; pages.length < PAGES_PER_SITE; i++) pages.push(i % 3 === 2 ? `/blog/post-${site}-${i}` : `/products/${1000 + i}`);
  return pages;
}

/** Zipf-like pick among n ranks (rank 0 the most frequent). */
function zipfTable(n: number, s: number): number[] {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / total));
}
function pick(cumulative: number[], r: number): number {
  let lo = 0, hi = cumulative.length - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (cumulative[mid] < r) lo = mid + 1; else hi = mid; }
  return lo;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0').slice(-width);
/** A UUIDv7-shaped id from a time and the generator (deterministic, time-ordered). */
function uuid7(ms: number, rnd: Prng): string {
  const t = hex(ms, 12);
  const r = () => hex(Math.floor(rnd.next() * 0x10000), 4);
  return `${t.slice(0, 8)}-${t.slice(8)}-7${r().slice(1)}-${(8 + Math.floor(rnd.next() * 4)).toString(16)}${r().slice(1)}-${r()}${r()}${r()}`;
}
const hex32 = (rnd: Prng) => Array.from({ length: 4 }, () => hex(Math.floor(rnd.next() * 2 ** 32), 8)).join('');

const SESSION_COLUMNS = ['id', 'site_id', 'sid', 'visitor_id', 'user_ref', 'environment', 'first_seen_at', 'last_seen_at', 'entry_page', 'exit_page', 'pages', 'page_count', 'event_count', 'signal_count', 'signal_counts', 'device_type', 'browser', 'os', 'viewport_bucket', 'app_version', 'referrer_host', 'converted', 'friction_weight'];
const EVENT_COLUMNS = ['id', 'site_id', 'sid', 'visitor_id', 'type', 'page', 'occurred_at', 'client_ts', 'received_at', 'dedupe_key', 'name', 'signal_type', 'element', 'label', 'props', 'referrer_page', 'environment'];
const SIGNAL_COLUMNS = ['id', 'site_id', 'event_id', 'sid', 'visitor_id', 'signal_type', 'page', 'element', 'label', 'confidence', 'occurred_at', 'rx', 'ry', 'vx', 'vy', 'environment'];

/**
 * Writes the generated sessions, events, signals, deploys, alerts and score history of the given
 * sites through `sink` over the `days` before `endAt`, a function of the arguments alone.
 * Returns the ids the read routes need.
 */
export async function generateRows(sink: Sink, siteIds: string[], signals: number, seed: string, endAt: number, days = DAYS) {
  const rnd = new Prng(`mallard-bench:${seed}:${signals}`);
  const startAt = endAt - days * DAY;
  const pageRank = zipfTable(PAGES_PER_SITE, 1.1);
  const elementRank = zipfTable(ELEMENT_KINDS.length, 1.2);
  const typeTotal = SIGNAL_TYPES.reduce((a, [, w]) => a + w, 0);
  const typeCumulative = SIGNAL_TYPES.map(([, w], i) => SIGNAL_TYPES.slice(0, i + 1).reduce((a, [, x]) => a + x, 0) / typeTotal);
  const siteCumulative = SITE_WEIGHTS.slice(0, siteIds.length).map((_, i, all) => all.slice(0, i + 1).reduce((a, b) => a + b, 0) / all.reduce((a, b) => a + b, 0));
  const pagesBySite = siteIds.map((_, s) => pagesOf(s));
  const visitorsPerSite = Math.max(50, Math.round(signals / SIGNALS_PER_SESSION / 2.5));

  const buffers = { sessions: [] as unknown[][], events: [] as unknown[][], signals: [] as unknown[][] };
  const flush = async (force = false) => {
    if (force || buffers.events.length >= 20_000) {
      await sink.insert('sessions', SESSION_COLUMNS, buffers.sessions);
      await sink.insert('events', EVENT_COLUMNS, buffers.events);
      await sink.insert('signals', SIGNAL_COLUMNS, buffers.signals);
      buffers.sessions = []; buffers.events = []; buffers.signals = [];
    }
  };

  let written = 0;
  let lastSession: string | null = null;
  while (written < signals) {
    const site = pick(siteCumulative, rnd.next());
    const siteId = siteIds[site];
    const pages = pagesBySite[site];
    // Traffic grows over the 90 days (the density rises linearly) and follows the hour of day.
    let at = startAt + Math.sqrt(rnd.next()) * (days * DAY - 60 * 60 * 1000);
    const hour = new Date(at).getUTCHours();
    if ((hour < 6 || hour > 22) && rnd.next() < 0.6) at = at - (hour < 6 ? hour + 3 : hour - 16) * 60 * 60 * 1000;
    at = Math.max(startAt, Math.floor(at));
    // The last day is always busy enough for the cycle to score the top pages.
    if (rnd.next() < 0.08) at = endAt - Math.floor(rnd.next() * DAY) - 10 * 60 * 1000;
    const sid = hex32(rnd);
    const visitor = `${hex(site, 8)}${hex(Math.floor(rnd.next() * visitorsPerSite), 24)}`;
    const [device, browser, os, viewport] = DEVICES[Math.floor(rnd.next() * DEVICES.length)];
    const pageviews = 1 + Math.floor(rnd.next() * rnd.next() * 8);
    const wanted = Math.min(signals - written, Math.floor(rnd.next() * rnd.next() * SIGNALS_PER_SESSION * 4));
    const visited: string[] = [];
    const counts: Record<string, number> = {};
    // sum(weight x cf), as ingest keeps it (migration 0018). Version 2: datasets built between
    // migration 0018 and this column (which 0018's backfill found empty) held zeros.
    let friction = 0;
    let t = at;
    let eventIndex = 0;
    let signalsLeft = wanted;
    for (let v = 0; v < pageviews; v++) {
      const page = pages[pick(pageRank, rnd.next())];
      const eventId = uuid7(t, rnd);
      buffers.events.push([eventId, siteId, sid, visitor, 'pageview', page, t, t, t + 500, `id:${sid}-${eventIndex++}`, null, null, null, null, null, visited.at(-1) ?? null, 'production']);
      visited.push(page);
      const here = v === pageviews - 1 ? signalsLeft : Math.floor(rnd.next() * (signalsLeft + 1));
      for (let k = 0; k < here; k++) {
        t += 1000 + Math.floor(rnd.next() * 20_000);
        const [type] = SIGNAL_TYPES[pick(typeCumulative, rnd.next())];
        const e = pick(elementRank, rnd.next());
        const element = ELEMENT_KINDS[(e + page.length) % ELEMENT_KINDS.length];
        const label = `${element.split(/[.#]/)[1]} ${e + 1}`;
        const confidence = Math.round((0.6 + rnd.next() * 0.4) * 100) / 100;
        const heat = HEATMAP_TYPES.has(type);
        const rx = heat ? Math.round(rnd.next() * 1000) / 1000 : null;
        const ry = heat ? Math.round(rnd.next() * 1000) / 1000 : null;
        const signalEventId = uuid7(t, rnd);
        buffers.events.push([signalEventId, siteId, sid, visitor, 'signal', page, t, t, t + 500, `id:${sid}-${eventIndex++}`, null, type, element, label, null, null, 'production']);
        buffers.signals.push([uuid7(t, rnd), siteId, signalEventId, sid, visitor, type, page, element, label, confidence, t, rx, ry, heat ? 0.5 : null, heat ? 0.5 : null, 'production']);
        counts[type] = (counts[type] ?? 0) + 1;
        friction += registryWeight(type) * confidence;
      }
      signalsLeft -= here;
      t += 5000 + Math.floor(rnd.next() * 60_000);
    }
    written += wanted;
    lastSession = site === 0 ? sid : lastSession;
    buffers.sessions.push([uuid7(at, rnd), siteId, sid, visitor, null, 'production', at, t, visited[0], visited.at(-1), JSON.stringify(visited.slice(0, 50)), visited.length, eventIndex, wanted, JSON.stringify(counts), device, browser, os, viewport, null, rnd.next() < 0.3 ? 'www.google.com' : null, rnd.next() < 0.05 ? 1 : 0, friction]);
    await flush();
  }
  await flush(true);

  // Deploys every other day per site; alerts about one a day per site; hourly score history.
  const deploys: unknown[][] = [];
  const alerts: unknown[][] = [];
  const timeline: unknown[][] = [];
  const history: unknown[][] = [];
  const siteHistory: unknown[][] = [];
  let firstDeploy = '', firstAlert = '';
  for (const [s, siteId] of siteIds.entries()) {
    const pages = pagesBySite[s];
    for (let d = days; d >= 0; d -= 2) {
      const at = endAt - d * DAY + 3 * 60 * 60 * 1000 - DAY;
      const id = uuid7(at, rnd);
      const before = Math.round(rnd.next() * 400) / 10;
      deploys.push([id, siteId, `v1.${days - d}.0`, 'production', at, hex32(rnd).slice(0, 40), 'bench', null, null, null, null, before, null, null, JSON.stringify(pages.slice(0, 5).map((page, i) => ({ page, score: before, active_users: 40 - i * 5 }))), null, null, at]);
      if (s === 0) firstDeploy = id;
    }
    for (let d = days; d >= 1; d--) {
      const at = endAt - d * DAY + Math.floor(rnd.next() * DAY);
      const id = uuid7(at, rnd);
      const status = d > 3 ? 'resolved' : ['fired', 'acknowledged', 'investigating'][d - 1];
      const page = pages[pick(pageRank, rnd.next())];
      alerts.push([id, siteId, null, 'spike', page, d % 5 === 0 ? 'high' : 'medium', status, `Confusion spike on ${page}`, 20, 45, 45, 30, '[]', at, null, null, status === 'resolved' ? at + DAY / 2 : null, status === 'resolved' ? 'recovered' : null, at, at, at]);
      timeline.push([uuid7(at, rnd), id, 'fired', `Confusion spike on ${page}`, null, at]);
      if (s === 0) firstAlert = id;
    }
    for (let h = days * 24; h >= 1; h--) {
      const cycleAt = Math.floor((endAt - h * 60 * 60 * 1000) / INTERVAL) * INTERVAL;
      const overall = Math.round((20 + 10 * Math.sin(h / 50) + rnd.next() * 5) * 10) / 10;
      siteHistory.push([uuid7(cycleAt, rnd), siteId, cycleAt, overall, overall, null, 'stable', 200, 40, cycleAt - DAY]);
      for (let p = 0; p < HISTORY_PAGES; p++) {
        const score = Math.round((10 + p + 15 * Math.sin((h + p * 7) / 40) ** 2 + rnd.next() * 5) * 10) / 10;
        history.push([uuid7(cycleAt, rnd), siteId, pages[p], cycleAt, score, score, null, 'stable', 40, 8, '[]']);
      }
    }
  }
  await sink.insert('deploys', ['id', 'site_id', 'version', 'environment', 'deployed_at', 'commit_sha', 'author', 'pr_number', 'provider', 'url', 'description', 'confusion_before', 'confusion_after', 'delta', 'pages_before', 'pages_after', 'after_computed_at', 'created_at'], deploys);
  await sink.insert('alerts', ['id', 'site_id', 'rule_id', 'trigger_type', 'page', 'severity', 'status', 'message', 'score_before', 'score_after', 'condition_value', 'threshold', 'breakdown', 'fired_at', 'acknowledged_at', 'investigating_at', 'resolved_at', 'resolved_reason', 'last_notified_at', 'created_at', 'updated_at'], alerts);
  await sink.insert('alert_timeline', ['id', 'alert_id', 'kind', 'message', 'details', 'created_at'], timeline);
  await sink.insert('score_history', ['id', 'site_id', 'page', 'cycle_at', 'score', 'raw_score', 'deviation', 'trend', 'active_users', 'affected_users', 'breakdown'], history);
  await sink.insert('site_score_history', ['id', 'site_id', 'cycle_at', 'overall_score', 'raw_score', 'deviation', 'trend', 'active_users', 'affected_users', 'window_start'], siteHistory);
  return { sessionId: lastSession ?? '', deployId: firstDeploy, alertId: firstAlert, page: '/checkout', otherPage: '/cart' };
}

/** A bulk writer into the store at `url` (already migrated). */
export function openSink(url: string): Sink {
  return url.startsWith('sqlite:') ? sqliteSink(url.slice('sqlite:'.length)) : postgresSink(url);
}

function sqliteSink(path: string): Sink {
  const file = new SQLite(path);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = OFF');
  const statements = new Map<string, SQLite.Statement>();
  return {
    async insert(table, columns, rows) {
      if (rows.length === 0) return;
      let statement = statements.get(table);
      if (!statement) {
        statement = file.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
        statements.set(table, statement);
      }
      const s = statement;
      file.transaction(() => { for (const row of rows) s.run(row); })();
    },
    async close() {
      // On SQLite no trigger counts inserted events and signals (store/row-counts.ts): the
      // sink, which writes them past ingest, counts them itself.
      for (const table of ['events', 'signals']) {
        file.exec(`delete from row_counts where table_name = '${table}';
          insert into row_counts (site_id, table_name, shard, row_count) select site_id, '${table}', 0, count(*) from ${table} group by site_id`);
      }
      file.pragma('wal_checkpoint(TRUNCATE)');
      file.close();
    },
  };
}

function postgresSink(url: string): Sink {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    async insert(table, columns, rows) {
      await connected;
      // Multi-row statements under PostgreSQL's 65,535-parameter limit.
      const perStatement = Math.floor(60_000 / columns.length);
      for (let i = 0; i < rows.length; i += perStatement) {
        const chunk = rows.slice(i, i + perStatement);
        const values: unknown[] = [];
        const tuples = chunk.map((row) => `(${row.map((v) => { values.push(v); return `$${values.length}`; }).join(', ')})`);
        await client.query(`insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')}`, values);
      }
    },
    async close() { await connected; await client.query('analyze'); await client.end(); },
  };
}

export const SIZES: Record<string, number> = { '1k': 1_000, '10k': 10_000, '100k': 100_000, '1m': 1_000_000, '10m': 10_000_000 };

export function datasetName(spec: DatasetSpec): string {
  return `mallard_bench_${spec.dialect}_${spec.signals}_${spec.seed}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

/** How old a cached dataset may be before it is rebuilt (BENCH_DATASET_MAX_AGE_HOURS, default 24). */
const MAX_AGE_MS = Number(process.env.BENCH_DATASET_MAX_AGE_HOURS ?? 24) * 60 * 60 * 1000;

export const cacheDir = () => process.env.BENCH_DATASET_DIR ?? join(tmpdir(), 'mallard-bench-datasets');

function postgresUrlFor(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the dataset (or reuses the cached one) and says how to reach it. */
export async function ensureDataset(spec: DatasetSpec, log: (line: string) => void = () => {}): Promise<Dataset> {
  const name = datasetName(spec);
  mkdirSync(cacheDir(), { recursive: true });
  const metaPath = join(cacheDir(), `${name}.json`);
  if (existsSync(metaPath)) {
    const cached = JSON.parse(readFileSync(metaPath, 'utf8')) as Dataset;
    // Reads look at the last hours and days from now: an old dataset would read as a quiet one.
    if (spec.endAt - cached.endAt <= MAX_AGE_MS && cached.version === DATASET_VERSION) {
      if (spec.dialect === 'postgres' && !cached.timeOrdered) {
        log(`${name}: putting rows in time order`);
        await orderLikeIngest(cached.url);
        cached.timeOrdered = true;
        writeFileSync(metaPath, JSON.stringify(cached, null, 2));
      }
      // A dataset built before a migration gets it here (a backfill may take minutes at 10M),
      // so the run's cold starts measure a start, not the migration.
      const store = openStore(cached.url, { sqliteReaders: 0 });
      const started = Date.now();
      const applied = await migrateToLatest(store.db).finally(() => store.close());
      if (applied.length > 0) {
        if (spec.dialect === 'postgres') await vacuum(cached.url);
        log(`${name}: migrated (${applied.join(', ')}) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
      return cached;
    }
  }
  const started = Date.now();
  let url: string;
  if (spec.dialect === 'sqlite') {
    const path = join(cacheDir(), `${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    url = `sqlite:${path}`;
  } else {
    if (!spec.baseUrl) throw new Error('a PostgreSQL dataset needs --database-url');
    const admin = new pg.Client({ connectionString: spec.baseUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    await admin.end();
    url = postgresUrlFor(spec.baseUrl, name);
  }
  log(`building ${name} (${spec.signals.toLocaleString('en-US')} signals)`);
  const dataset = await buildDataset(url, spec, name, log);
  dataset.buildSeconds = (Date.now() - started) / 1000;
  writeFileSync(metaPath, JSON.stringify(dataset, null, 2));
  log(`built ${name} in ${dataset.buildSeconds.toFixed(0)} s: ${JSON.stringify(dataset.counts)}`);
  return dataset;
}

/** Migrates an empty store at `url`, fills it and runs the last pipeline cycles. */
export async function buildDataset(url: string, spec: DatasetSpec, name: string, log: (line: string) => void = () => {}): Promise<Dataset> {
  const started = Date.now();
  const store = openStore(url, { sqliteReaders: 0 });
  await migrateToLatest(store.db);
  const createdAt = spec.endAt - (DAYS + 1) * DAY;
  const org = await bootstrapOrg(store, new Secrets(BENCH_SECRET), { org: 'Bench', siteName: 'Shop', siteUrl: 'https://shop.example', email: 'bench@example.com', password: 'bench-password' }, createdAt);
  const siteIds = [org.site_id];
  for (let s = 1; s < SITE_WEIGHTS.length; s++) siteIds.push((await insertSite(store.db, org.org_id, { name: `Site ${s + 1}`, url: `https://site${s + 1}.example` }, createdAt)).id);
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : null;
  const secondary = await dropSecondaryIndexes(store.db, path !== null);
  if (path) await store.close();
  const sink = openSink(url);
  const ids = await generateRows(sink, siteIds, spec.signals, spec.seed, spec.endAt);
  await sink.close();
  if (!path) await orderLikeIngest(url);
  log(`${name}: rows written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  await recreateIndexes(url, secondary);
  log(`${name}: indexes built at ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const cycles = path ? openStore(url, { sqliteReaders: 0 }) : store;
  // Sessions' paths (migration 0022) from the rows written past ingest, as the migration fills them.
  await backfillSessionPaths(cycles.db);
  if (!path) await vacuum(url);
  log(`${name}: session paths at ${((Date.now() - started) / 1000).toFixed(0)} s`);
  // The cycles of the last hour: scores, deploys' after-scores, issues from the last 48 hours.
  const lastCycle = Math.floor(spec.endAt / INTERVAL) * INTERVAL;
  for (const siteId of siteIds) {
    for (let c = 3; c >= 0; c--) await runCycle(cycles.db, siteId, lastCycle - c * INTERVAL, { intervalMs: INTERVAL, clock: systemClock });
  }
  log(`${name}: cycles done at ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const issue = await cycles.db.selectFrom('ux_issues').select('id').where('site_id', '=', siteIds[0]).orderBy('severity_score', 'desc').limit(1).executeTakeFirst();
  const topElement = await cycles.db.selectFrom('signals').select('element').where('site_id', '=', siteIds[0]).where('page', '=', ids.page)
    .where('occurred_at', '>=', spec.endAt - DAY).groupBy('element').orderBy((eb) => eb.fn.countAll(), 'desc').limit(1).executeTakeFirst();
  const counts: Record<string, number> = {};
  for (const table of ['sessions', 'events', 'signals', 'deploys', 'alerts', 'score_history', 'page_scores', 'ux_issues'] as const) {
    counts[table] = Number((await cycles.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  }
  await cycles.close();
  return {
    version: DATASET_VERSION, url, name, signals: spec.signals, seed: spec.seed, endAt: spec.endAt, secretKey: org.keys.secret, siteIds,
    params: { ...ids, element: topElement?.element ?? 'button.pay', issueId: issue?.id ?? null },
    counts, buildSeconds: 0, timeOrdered: !path,
  };
}

/** The tables the generator fills in bulk; their secondary indexes are built once, after the rows. */
const BULK_TABLES = ['sessions', 'events', 'signals'];

/**
 * Drops the bulk tables' secondary indexes (not primary keys or constraints) and returns their
 * definitions: an index kept up to date row by row over rows in random time order costs most of
 * a 10M build, and one built from the finished table is a single sort.
 */
async function dropSecondaryIndexes(db: ReturnType<typeof openStore>['db'], sqlite: boolean): Promise<string[]> {
  const list = BULK_TABLES.map((t) => `'${t}'`).join(', ');
  const found = sqlite
    ? await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
        where type = 'index' and sql is not null and tbl_name in (${sql.raw(list)})`.execute(db)
    : await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes
        where schemaname = current_schema() and tablename in (${sql.raw(list)})
          and not exists (select 1 from pg_constraint where conname = indexname)`.execute(db);
  for (const index of found.rows) await sql.raw(`drop index ${index.name}`).execute(db);
  return found.rows.map((index) => index.definition);
}

async function recreateIndexes(url: string, definitions: string[]) {
  if (url.startsWith('sqlite:')) {
    const file = new SQLite(url.slice('sqlite:'.length));
    try {
      for (const definition of definitions) file.exec(definition);
    } finally {
      file.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`set maintenance_work_mem = '1GB'`);
    for (const definition of definitions) await client.query(definition);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL after a backfill that updated every row (migration 0022's paths): the old row
 * versions vacuumed and the visibility map set, as autovacuum leaves a live store, so
 * index-only reads (the sessions search's count) are not measured against a table of dead rows
 * (a count of 33,899 sessions visited 7,808 heap pages and 67,612 index entries at 1M).
 */
async function vacuum(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}

/**
 * The generator draws each session's time at random, so its rows reach the store in no time
 * order. Ingest writes them as they happen, in time order, and PostgreSQL's tables keep rows
 * where they were written (SQLite's too, by rowid): in a real store a session's events, and the
 * latest sessions, sit together on disk, while in the generated one they are scattered over the
 * whole table, and a read of the latest sessions' events (flows, the friction map) touches a
 * page per row, which PostgreSQL (default shared_buffers 128 MB) reads from the OS or the disk.
 * So the rows are put in the order ingest would have written them: events and signals by time,
 * sessions by their last activity (the reads runs in BENCHMARKS-HISTORY.md have the effect on flows).
 */
async function orderLikeIngest(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`set maintenance_work_mem = '1GB'`);
    for (const [table, column] of [['events', 'occurred_at'], ['signals', 'occurred_at'], ['sessions', 'last_seen_at']]) {
      await client.query(`create index bench_time_order on ${table} (${column})`);
      await client.query(`cluster ${table} using bench_time_order`);
      await client.query('drop index bench_time_order');
    }
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
