// The `mallard` CLI as a user runs it: real processes, real exit codes, real output.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestStore, type TestStore, eachDialect } from './helpers/harness.ts';

// Each test runs the CLI several times, a few seconds a start on a busy two-core machine.
vi.setConfig({ testTimeout: 180_000 });

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const SECRET = 'cli-test-secret-cli-test-secret-0123456789';

function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: cwd ?? mkdtempSync(join(tmpdir(), 'mallard-cli-')),
    env: { PATH: process.env.PATH, MALLARD_SECRET: SECRET, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every command of the CLI contract (DESIGN.md, issue 8), with what its --help must say. */
const COMMANDS: [string, string[]][] = [
  ['serve', ['--no-worker', '127.0.0.1:8787', 'MALLARD_DEMO=0']],
  ['worker', ['pipeline scheduler', 'delivery']],
  ['migrate', ['DATABASE_URL']],
  ['bootstrap', ['--org <name>', '--site-name <name>', '--site-url <url>', '--email <email>', '--password <password>', '--json']],
  ['pipeline', ['--site <id>', '--at <iso8601>', '--from <iso8601>', '--to <iso8601>']],
  ['simulate', ['--days <n>', '--sessions-per-day <n>', '--seed <text>', '--site <id>', '--url <url>', '--key <key>']],
  ['keys', ['create', 'list', 'revoke']],
  ['keys create', ['--site <id>', '--type <type>', '--scopes <list>', '--name <name>', '--json']],
  ['keys list', ['--site <id>', '--org <id>', '--json']],
  ['keys revoke', ['<id>']],
  ['privacy', ['export', 'erase']],
  ['privacy export', ['--site <id>', '--visitor <id>', '--user-ref <ref>']],
  ['privacy erase', ['--site <id>', '--visitor <id>', '--user-ref <ref>']],
  ['backup', ['--to <file>', 'pg_dump']],
  ['restore', ['--from <file>', 'pg_restore']],
  ['secret', ['rotate']],
  ['secret rotate', ['MALLARD_SECRET_PREVIOUS', 'MALLARD_SECRET', 're-seal', 're-hashed on its next use']],
  ['mcp', ['MALLARD_URL', 'http://127.0.0.1:8787', 'MALLARD_MCP_KEY', 'MALLARD_SITE_ID', 'stderr']],
];

const bootstrapArgs = (email: string) => ['bootstrap', '--org', 'Acme', '--site-name', 'Shop', '--site-url', 'https://shop.example', '--email', email, '--password', 'correct-horse-battery', '--json'];

describe('mallard CLI: help and arguments', () => {
  it('--help lists every command', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    const listed = [...stdout.split('Commands:')[1].matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    expect(listed.sort()).toEqual([...new Set(COMMANDS.map(([command]) => command.split(' ')[0]))].sort());
    expect(stdout).toContain('keys create');
  });

  it.each(COMMANDS)('%s --help describes the command and names its options', (command, mentions) => {
    const { code, stdout } = run([...command.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: mallard ${command} `);
    for (const text of mentions) expect(stdout).toContain(text);
  });

  it('bootstrap --help names every option of the contract', () => {
    const { stdout } = run(['bootstrap', '--help']);
    for (const option of ['--org', '--site-name', '--site-url', '--email', '--password', '--json']) expect(stdout).toContain(option);
  });

  it('an unknown command or option exits non-zero with a one-line reason', () => {
    const unknown = run(['fly']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.split('\n')[0]).toMatch(/unknown command 'fly'/);
    const badOption = run(['migrate', '--colour']);
    expect(badOption.code).not.toBe(0);
    expect(badOption.stderr.split('\n')[0]).toMatch(/unknown option '--colour'/);
  });

  it('bootstrap without a required option exits non-zero naming it', () => {
    const { code, stderr } = run(['bootstrap', '--org', 'Acme']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--site-name/);
  });

  it('bootstrap with a bad email or short password exits 1 with one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-cli-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'm.db')}` };
    const email = run(['bootstrap', '--org', 'A', '--site-name', 'S', '--site-url', 'https://s.example', '--email', 'nope', '--password', 'long-enough-1'], env);
    expect(email.code).toBe(1);
    expect(email.stderr.trim()).toBe('mallard: --email is not a valid email address: nope');
    const password = run(['bootstrap', '--org', 'A', '--site-name', 'S', '--site-url', 'https://s.example', '--email', 'a@b.co', '--password', 'short'], env);
    expect(password.code).toBe(1);
    expect(password.stderr.trim()).toMatch(/^mallard: --password must be 8 to 256 characters$/);
  });
});

describe('mallard CLI: configuration', () => {
  it('a bad variable stops with one line naming it', () => {
    const port = run(['migrate'], { PORT: 'eighty' });
    expect(port.code).toBe(1);
    expect(port.stderr.trim()).toBe('mallard: PORT must be a whole number, got "eighty"');
    const db = run(['migrate'], { DATABASE_URL: 'mysql://x' });
    expect(db.code).toBe(1);
    expect(db.stderr.trim().split('\n')).toHaveLength(1);
    expect(db.stderr).toContain('DATABASE_URL');
    const limit = run(['migrate'], { RATE_LIMIT_QUERY_PER_MIN: '0' });
    expect(limit.stderr).toContain('RATE_LIMIT_QUERY_PER_MIN');
  });

  it('production requires MALLARD_SECRET', () => {
    const result = spawnSync(process.execPath, [BIN, 'migrate'], {
      cwd: mkdtempSync(join(tmpdir(), 'mallard-cli-')),
      env: { PATH: process.env.PATH, NODE_ENV: 'production' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('mallard: MALLARD_SECRET is required when NODE_ENV=production');
  });

  it('development generates the secret into the data dir with mode 0600, and reuses it', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mallard-cli-'));
    const env = { PATH: process.env.PATH! };
    const first = spawnSync(process.execPath, [BIN, 'migrate'], { cwd, env, encoding: 'utf8' });
    expect(first.status).toBe(0);
    const file = join(cwd, 'data', 'secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(file, 'utf8');
    expect(secret.trim().length).toBeGreaterThanOrEqual(32);
    spawnSync(process.execPath, [BIN, 'migrate'], { cwd, env, encoding: 'utf8' });
    expect(readFileSync(file, 'utf8')).toBe(secret);
  });
});

eachDialect('mallard CLI', ({ name, skip }) => {
  let store: TestStore;
  beforeAll(async () => { store = await createTestStore(name); });
  afterAll(async () => { await store?.drop(); });

  it.skipIf(skip)('migrate is idempotent', () => {
    const again = run(['migrate'], { DATABASE_URL: store.url });
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe('Already up to date');
  });

  it.skipIf(skip)('bootstrap --json prints the contract shape and stores only hashes of the keys', async () => {
    const { code, stdout } = run(bootstrapArgs(`cli-${name}@example.com`), { DATABASE_URL: store.url });
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(['email', 'keys', 'org_id', 'site_id', 'user_id']);
    expect(out.email).toBe(`cli-${name}@example.com`);
    expect(out.keys.secret).toMatch(/^svc_sec_[0-9A-Za-z]{32,}$/);
    expect(out.keys.mcp).toMatch(/^svc_mcp_[0-9A-Za-z]{32,}$/);
    expect(out.keys.publishable).toMatch(/^svc_pub_[0-9A-Za-z]{32,}$/);
    const keys = await store.store.db.selectFrom('api_keys').select(['key_type', 'site_id', 'scopes', 'key_hash']).where('org_id', '=', out.org_id).execute();
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      expect(key.site_id).toBe(out.site_id);
      expect(Object.values(out.keys)).not.toContain(key.key_hash);
    }
    const secret = keys.find((k) => k.key_type === 'secret')!;
    expect(JSON.parse(secret.scopes).sort()).toEqual(['ingest:write', 'manage:write', 'mcp:read', 'query:read', 'webhook:write']);
  });

  it.skipIf(skip)('bootstrap with an email that exists exits 1 with "email already exists"', () => {
    const email = `dup-${name}@example.com`;
    expect(run(bootstrapArgs(email), { DATABASE_URL: store.url }).code).toBe(0);
    const again = run(bootstrapArgs(email), { DATABASE_URL: store.url });
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe('mallard: email already exists');
  });
});

describe('mallard worker', () => {
  it('keeps running until SIGTERM, then stops gracefully with exit code 0', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mallard-worker-'));
    const child = spawn(process.execPath, [BIN, 'worker'], {
      cwd,
      env: { PATH: process.env.PATH, MALLARD_SECRET: SECRET, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    await new Promise<void>((started, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Mallard worker running')) started();
      });
      child.once('exit', (code) => reject(new Error(`worker exited early with ${code}: ${output}`)));
    });
    // Its timers do not hold the process open; the worker must not end once they are idle.
    await new Promise((resolveWait) => setTimeout(resolveWait, 1500));
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM received');
  });
});

describe('mallard serve', () => {
  it('serves, then stops gracefully on SIGTERM with exit code 0', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mallard-serve-'));
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd,
      env: { PATH: process.env.PATH, MALLARD_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', MALLARD_DEMO: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
        if (match) resolveUrl(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${output}`)));
    });
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ data: { status: 'ok' }, error: null });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM received');
  });
});
