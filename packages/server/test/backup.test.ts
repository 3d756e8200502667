// `mallard backup` and `mallard restore` as an operator runs them: a backup taken while a real
// server ingests holds every event acknowledged before it began; a restore checks the file and
// swaps it in; PostgreSQL points to pg_dump. SQLite only (the commands are SQLite's).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Each test runs the CLI several times, a few seconds a start on a busy two-core machine.
vi.setConfig({ testTimeout: 180_000 });

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const SECRET = 'backup-test-secret-backup-test-secret-01';
const dir = mkdtempSync(join(tmpdir(), 'mallard-backup-'));
const storePath = join(dir, 'live.db');
const env = (db = storePath) => ({ PATH: process.env.PATH ?? '', MALLARD_SECRET: SECRET, DATABASE_URL: `sqlite:${db}`, MALLARD_DEMO: '0', LOG_LEVEL: 'warn' });

function cli(args: string[], extraEnv: Record<string, string> = env()) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env: extraEnv, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same CLI without blocking the test's event loop (ingest keeps going meanwhile). */
function cliAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

const freePort = () => new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

/** Event ids in a store file, read with a plain connection. */
function eventIds(path: string): Set<string> {
  const db = new SQLite(path, { readonly: true });
  const rows = db.prepare('select sid, dedupe_key from events').all() as { sid: string; dedupe_key: string }[];
  db.close();
  return new Set(rows.map((r) => `${r.sid}/${r.dedupe_key}`));
}

describe('mallard backup and restore', () => {
  let server: ChildProcess | undefined;
  let base = '';
  let publishable = '';

  beforeAll(async () => {
    const boot = cli(['bootstrap', '--org', 'Backup', '--site-name', 'Shop', '--site-url', 'https://shop.example', '--email', 'backup@example.com', '--password', 'correct-horse-battery', '--json']);
    expect(boot.code, boot.stderr).toBe(0);
    publishable = JSON.parse(boot.stdout).keys.publishable;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [BIN, 'serve', '--no-worker'], { cwd: dir, env: { ...env(), PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
    for (let i = 0; i < 300; i++) {
      try { if ((await fetch(`${base}/readyz`)).ok) return; } catch { /* starting */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the server never became ready');
  });
  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server!.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup taken during ingest holds every batch acknowledged before it began, and restores intact', async () => {
    let n = 0;
    const acknowledgedBefore: string[] = [];
    let backupStarted = false;
    let stop = false;
    const sendOne = async () => {
      const sid = (++n).toString(16).padStart(32, '0');
      const now = Date.now();
      const events = Array.from({ length: 10 }, (_, i) => ({ id: `${sid.slice(0, 24)}${i.toString(16).padStart(8, '0')}`, type: 'pageview', ts: now - 1000 + i, page: `/p${i}` }));
      const startedBefore = !backupStarted;
      const res = await fetch(`${base}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: publishable, sid, ts: now, events }) });
      if (res.status === 202 && startedBefore && !backupStarted) acknowledgedBefore.push(sid);
      return res.status;
    };
    const ingest = (async () => { while (!stop) await Promise.all([sendOne(), sendOne(), sendOne(), sendOne()]); })();
    await new Promise((r) => setTimeout(r, 1500));
    backupStarted = true;
    const backupPath = join(dir, 'during.db');
    const backup = await cliAsync(['backup', '--to', backupPath]);
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await ingest;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up .* to .*during\.db \(\d+ bytes; schema \d{4}-[a-z-]+\)\n$/);
    expect(acknowledgedBefore.length).toBeGreaterThan(20);
    expect(existsSync(`${backupPath}-wal`)).toBe(false);

    // Restore into a new (stopped) location: every batch acknowledged before the backup, all ten events.
    const restoredPath = join(dir, 'restored.db');
    const restore = cli(['restore', '--from', backupPath], env(restoredPath));
    expect(restore.code, restore.stderr).toBe(0);
    const perSession = new Map<string, number>();
    for (const id of eventIds(restoredPath)) perSession.set(id.split('/')[0], (perSession.get(id.split('/')[0]) ?? 0) + 1);
    const incomplete = acknowledgedBefore.filter((sid) => perSession.get(sid) !== 10);
    expect(incomplete).toEqual([]);
    const db = new SQLite(restoredPath, { readonly: true });
    expect((db.prepare('pragma integrity_check').get() as { integrity_check: string }).integrity_check).toBe('ok');
    db.close();
    // The restored store serves: migrate (what a start does) finds it current.
    expect(cli(['migrate'], env(restoredPath)).stdout.trim()).toBe('Already up to date');
  });

  it('refuses an existing target, a store in use, a non-store and a backup from a newer Mallard, each in one line', () => {
    const path = join(dir, 'first.db');
    expect(cli(['backup', '--to', path]).code).toBe(0);
    const again = cli(['backup', '--to', path]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`mallard: ${path} exists; choose another file or pass --force`);
    expect(cli(['backup', '--to', path, '--force']).code).toBe(0);

    // The live store is open in the server: its -wal file exists.
    const inUse = cli(['restore', '--from', path]);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/looks in use .*-wal exists\): stop Mallard first/);

    const junk = join(dir, 'junk.db');
    const j = new SQLite(junk);
    j.exec('create table t (x)');
    j.close();
    const notStore = cli(['restore', '--from', junk], env(join(dir, 'x.db')));
    expect(notStore.code).toBe(1);
    expect(notStore.stderr.trim()).toBe(`mallard: the backup ${junk} is not a Mallard store (no migration table)`);

    const newer = join(dir, 'newer.db');
    expect(cli(['backup', '--to', newer]).code).toBe(0);
    const n = new SQLite(newer);
    n.prepare("insert into mallard_migrations (name, timestamp) values ('9999-from-the-future', '2030-01-01')").run();
    n.close();
    const refused = cli(['restore', '--from', newer], env(join(dir, 'y.db')));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('was made by a newer Mallard (migrations 9999-from-the-future are unknown to this one)');
    expect(existsSync(join(dir, 'y.db'))).toBe(false);
  });

  it('a restore keeps the store it replaces beside it', () => {
    const stopped = join(dir, 'stopped.db');
    const source = join(dir, 'source.db');
    expect(cli(['backup', '--to', source]).code).toBe(0);
    expect(cli(['migrate'], env(stopped)).code).toBe(0);
    const res = cli(['restore', '--from', source], env(stopped));
    expect(res.code, res.stderr).toBe(0);
    const kept = /kept as (.*\.before-restore-[^\s]+)$/.exec(res.stdout.trim())?.[1];
    expect(kept && existsSync(kept)).toBe(true);
    expect(eventIds(stopped).size).toBe(eventIds(source).size);
  });

  it('on PostgreSQL both commands point to pg_dump and pg_restore and exit 2', () => {
    const pg = { ...env(), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const backup = cli(['backup', '--to', join(dir, 'pg.dump')], pg);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain('pg_dump --format=custom');
    const restore = cli(['restore', '--from', join(dir, 'pg.dump')], pg);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain('pg_restore');
  });

  it('--help says what each command does', () => {
    expect(cli(['backup', '--help']).stdout).toContain('--to <file>');
    expect(cli(['restore', '--help']).stdout).toContain('--from <file>');
  });
});
