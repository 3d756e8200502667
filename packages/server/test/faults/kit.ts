// What the fault suite's tests share: a PostgreSQL cluster of their own (never the shared one),
// a real `mallard serve` process, and traffic that keeps count: every ingest batch sent, what
// it was answered, and afterwards, through the CSV export, how often each acknowledged event
// was stored. Each event's page is unique, so the export says exactly which batches landed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { TEST_SECRET } from '../helpers/harness.ts';

const BIN = resolve(import.meta.dirname, '../../bin/mallard.js');
const PG_BIN = '/usr/lib/postgresql/15/bin';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
/** A browser's user agent: ingest drops batches from clients that look like bots. */
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export const freePort = () => new Promise<number>((done, fail) => {
  const server = createServer().once('error', fail).listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => done(port));
  });
});

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** Whether a fault test can run; without what it needs it skips with a line, and fails under CI. */
export function canRun(suite: string, missing: string | null): boolean {
  if (!missing) return true;
  if (IN_CI) throw new Error(`CI=true and ${missing}: failing instead of skipping the ${suite}`);
  console.warn(`SKIPPING the ${suite}: ${missing}`);
  return false;
}

/** PostgreSQL 15's server binaries are installed (Debian's postgresql-15). */
export function postgresBinariesMissing(): string | null {
  try {
    execFileSync(join(PG_BIN, 'pg_ctl'), ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return `PostgreSQL's server binaries are not at ${PG_BIN}`;
  }
}

export interface PrivatePostgres {
  url: string;
  /** A new database whose tables live in `dir` (a tablespace there): where a small disk fills. */
  databaseOn(dir: string): Promise<string>;
  /** `pg_ctl restart -m fast`: every connection is ended (57P01) and the server is back at once. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`, leaving it down until start(). */
  down(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

/**
 * A throwaway cluster on a free port: initdb into a temporary directory, then pg_ctl. PostgreSQL
 * refuses to run as root, so as root (CI) it runs as the postgres user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mallard-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(PG_BIN, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(PG_BIN, tool), ...args] : args;
    return new Promise<void>((done, fail) => {
      const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
      let out = '';
      child.stdout!.on('data', (c) => { out += c; });
      child.stderr!.on('data', (c) => { out += c; });
      child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`${tool} ${args.join(' ')} exited ${code}: ${out}`))));
    });
  };
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`;
  const ctl = (action: string) => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', '-m', 'fast', action]);
  await ctl('start');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    async databaseOn(dir: string) {
      // The tablespace's directory must belong to the server's user.
      if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE TABLESPACE small LOCATION '${dir}'`);
        await admin.query('CREATE DATABASE on_small TABLESPACE small');
      } finally {
        await admin.end();
      }
      return url.replace(/\/postgres$/, '/on_small');
    },
    restart: () => ctl('restart'),
    down: () => ctl('stop'),
    start: () => ctl('start'),
    async destroy() {
      await ctl('stop').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A started `mallard` process and what it printed. */
export interface Mallard {
  child: ChildProcess;
  base: string;
  output(): string;
  /** Its pino log lines. */
  logs(): { level: number; msg: string; [key: string]: unknown }[];
  alive(): boolean;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) => new Promise<void>((done) => {
  if (child.exitCode !== null || child.signalCode !== null) done(); else child.once('exit', () => done());
});

function spawnMallard(args: string[], env: Record<string, string>, port: number): Mallard {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '', MALLARD_SECRET: TEST_SECRET, HOST: '127.0.0.1', PORT: String(port),
      MALLARD_DEMO: '0', LOG_LEVEL: 'info',
      // The traffic is one org's, faster than the default limits; a limit test sets its own.
      RATE_LIMIT_QUERY_PER_MIN: '1000000', RATE_LIMIT_MANAGE_PER_MIN: '1000000', RATE_LIMIT_INGEST_PER_MIN: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { out += c; });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child, base: `http://127.0.0.1:${port}`, output: () => out, alive,
    logs: () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)),
    async stop() {
      if (alive()) child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** `mallard serve` on the given store, ready when /readyz says so. */
export async function serve(env: Record<string, string>, args: string[] = []): Promise<Mallard> {
  const mallard = spawnMallard(['serve', ...args], env, await freePort());
  await eventually(async () => {
    if (!mallard.alive()) throw new Error(`mallard serve exited with ${mallard.child.exitCode}: ${mallard.output()}`);
    try { return (await fetch(`${mallard.base}/readyz`)).ok; } catch { return false; }
  }, 'mallard serve to be ready', 120_000);
  return mallard;
}

export interface Credentials { org_id: string; site_id: string; keys: { secret: string; publishable: string } }

/** `mallard bootstrap --json` on the store (it migrates first). */
export function bootstrap(databaseUrl: string): Credentials {
  const out = execFileSync(process.execPath, [BIN, 'bootstrap', '--org', 'Faults', '--site-name', 'Faults', '--site-url', 'https://faults.example',
    '--email', 'owner@faults.example', '--password', 'fault-password-1', '--json'], {
    env: { PATH: process.env.PATH ?? '', MALLARD_SECRET: TEST_SECRET, DATABASE_URL: databaseUrl, MALLARD_DEMO: '0', LOG_LEVEL: 'warn' },
  });
  return JSON.parse(out.toString()) as Credentials;
}

/** A number in letters: page paths normalise numeric segments to :id. */
const letters = (n: number) => n.toString(26).split('').map((d) => String.fromCharCode(97 + Number.parseInt(d, 26))).join('');

/** What a stream of requests was answered: statuses and codes, and requests that got no answer at all. */
export class Answers {
  readonly byStatus = new Map<string, number>();
  noAnswer = 0;
  readonly examples: string[] = [];

  note(status: number, code: string | null) {
    const key = code ? `${status} ${code}` : String(status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
  }

  /** Answers that break the promise: a 5xx other than the 503s with Retry-After, or none at all. */
  broken(): string[] {
    const bad = [...this.byStatus].filter(([key]) => key.startsWith('5') && key !== '503 unavailable' && key !== '503 storage_full').map(([k, n]) => `${k}: ${n}`);
    if (this.noAnswer > 0) bad.push(`no answer: ${this.noAnswer}`);
    return bad;
  }

  summary(): string {
    return [...this.byStatus].sort().map(([k, n]) => `${k}: ${n}`).join(', ') + (this.noAnswer ? `, no answer: ${this.noAnswer}` : '');
  }
}

async function answered(answers: Answers, request: () => Promise<Response>): Promise<Response | null> {
  let res: Response;
  try {
    res = await request();
  } catch (err) {
    answers.noAnswer++;
    if (answers.examples.length < 5) answers.examples.push(String((err as Error).cause ?? err));
    return null;
  }
  let code: string | null = null;
  if (res.status >= 400) {
    const text = await res.text();
    try { code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null; } catch { code = 'not-json'; }
    if (res.status === 503 && !res.headers.get('retry-after')) code = `${code} without Retry-After`;
  } else {
    await res.arrayBuffer();
  }
  answers.note(res.status, code);
  return res;
}

/**
 * Ingest and read traffic against a server until stopped: `concurrency` loops each sending a
 * batch of `eventsPerBatch` pageviews (pages unique to the batch) and, between batches, a read.
 */
export class Traffic {
  readonly ingest = new Answers();
  readonly reads = new Answers();
  /** Pages of the batches answered 202 (acknowledged) and of those refused. */
  readonly acknowledged: string[] = [];
  readonly refused: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private batchNo = 0;

  constructor(private readonly base: string, private readonly credentials: Credentials, private readonly options: { concurrency?: number; eventsPerBatch?: number; pauseMs?: number } = {}) {}

  start() {
    this.running = true;
    const concurrency = this.options.concurrency ?? 4;
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop());
    return this;
  }

  async stop() {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Sends one batch and notes its answer. */
  async sendBatch(): Promise<number | null> {
    const n = ++this.batchNo;
    const perBatch = this.options.eventsPerBatch ?? 5;
    const now = Date.now();
    const pages = Array.from({ length: perBatch }, (_, i) => `/fault/${letters(process.pid)}/${letters(n)}/${letters(i)}`);
    const sid = `${n.toString(16).padStart(8, '0')}${'f'.repeat(24)}`;
    const body = {
      key: this.credentials.keys.publishable, sid, ts: now,
      events: pages.map((page, i) => ({ type: 'pageview', ts: now - (perBatch - i), page })),
    };
    const res = await answered(this.ingest, () => fetch(`${this.base}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA }, body: JSON.stringify(body) }));
    if (res?.status === 202) this.acknowledged.push(...pages); else this.refused.push(...pages);
    return res?.status ?? null;
  }

  async read(path = '/v1/query/scores'): Promise<number | null> {
    const res = await answered(this.reads, () => fetch(`${this.base}${path}?site_id=${this.credentials.site_id}`, { headers: { authorization: `Bearer ${this.credentials.keys.secret}` } }));
    return res?.status ?? null;
  }

  private async loop() {
    while (this.running) {
      await this.sendBatch();
      await this.read();
      await sleep(this.options.pauseMs ?? 20);
    }
  }
}

/** How often each page was stored, from the site's CSV export. */
export async function storedPages(base: string, credentials: Credentials): Promise<Map<string, number>> {
  const res = await fetch(`${base}/v1/query/export/events.csv?site_id=${credentials.site_id}`, { headers: { authorization: `Bearer ${credentials.keys.secret}` } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  const lines = (await res.text()).trim().split(/\r?\n/);
  const header = lines[0].split(',');
  const pageColumn = header.indexOf('page');
  const counts = new Map<string, number>();
  for (const line of lines.slice(1)) {
    // Our pages hold no comma or quote, and come before any column that might.
    const page = line.split(',')[pageColumn];
    counts.set(page, (counts.get(page) ?? 0) + 1);
  }
  return counts;
}

/** The promise of every fault: each acknowledged event stored exactly once. */
export async function acknowledgedExactlyOnce(base: string, credentials: Credentials, traffic: Traffic) {
  const stored = await storedPages(base, credentials);
  const lost = traffic.acknowledged.filter((page) => !stored.has(page));
  const duplicated = traffic.acknowledged.filter((page) => (stored.get(page) ?? 0) > 1);
  const refusedButStored = traffic.refused.filter((page) => stored.has(page));
  return { acknowledged: traffic.acknowledged.length, lost: lost.length, duplicated: duplicated.length, refusedButStored: refusedButStored.length };
}

/** A metric's value from /metrics (summed over its label sets that match `labels`). */
export async function metric(base: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      if (labels && !line.includes(labels)) continue;
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

/** A small tmpfs of the test's own: a disk that fills. Null (with why) where mounting is not allowed. */
export function mountSmallDisk(sizeMb: number): { dir: string; unmount(): void } | string {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = mkdtempSync(join(tmpdir(), 'mallard-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return `mount -t tmpfs failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a file until the filesystem has no space left; returns its path. */
export function fillDisk(dir: string): string {
  const path = join(dir, 'filler');
  const chunk = Buffer.alloc(256 * 1024);
  const fd = openSync(path, 'w');
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    // The last partial chunk: fill to the last byte.
    try { for (;;) writeSync(fd, Buffer.alloc(512)); } catch { /* full */ }
  } finally {
    closeSync(fd);
  }
  return path;
}
