// `mallard keys create` as an operator runs it: a real process against a real store; the key
// works on the API at once, is shown once and stored only as an HMAC; mistakes are one line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCOPES } from '../src/auth/api-keys.ts';
import { buildApp, type App } from '../src/app.ts';
import { ManualClock } from '../src/clock.ts';
import { MemoryRateLimiter } from '../src/store/rate-limit.ts';
import { createTestStore, testConfig, type TestStore, eachDialect } from './helpers/harness.ts';

// Each test runs the CLI several times, a few seconds a start on a busy two-core machine.
vi.setConfig({ testTimeout: 180_000 });

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const SECRET = 'cli-keys-secret-cli-keys-secret-0123456789';

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'mallard-cli-keys-')),
    env: { PATH: process.env.PATH, MALLARD_SECRET: SECRET, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('mallard keys create: arguments', () => {
  it('--help names every option', () => {
    const { code, stdout } = run(['keys', 'create', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: mallard keys create [options]');
    for (const option of ['--site <id>', '--type <type>', '--scopes <list>', '--name <name>', '--expires-in <duration>', '--json']) expect(stdout).toContain(option);
    expect(stdout).toMatch(/30d, 12h or 90m/);
    expect(stdout).toMatch(/secret, mcp or publishable/);
  });

  it('without --site or --type exits non-zero naming the option', () => {
    const noSite = run(['keys', 'create', '--type', 'secret']);
    expect(noSite.code).not.toBe(0);
    expect(noSite.stderr.split('\n')[0]).toMatch(/required option '--site <id>' not specified/);
    const noType = run(['keys', 'create', '--site', '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f']);
    expect(noType.code).not.toBe(0);
    expect(noType.stderr.split('\n')[0]).toMatch(/required option '--type <type>' not specified/);
  });

  it('a bad type, site id or scope exits 1 with one line, before touching any store', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-cli-keys-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'never.db')}` };
    const type = run(['keys', 'create', '--site', '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f', '--type', 'admin'], env);
    expect(type.code).toBe(1);
    expect(type.stderr.trim()).toBe('mallard: --type must be one of secret, mcp, publishable, got "admin"');
    const site = run(['keys', 'create', '--site', 'shop', '--type', 'secret'], env);
    expect(site.code).toBe(1);
    expect(site.stderr.trim()).toBe('mallard: --site must be a site id (a UUID), got "shop"');
    const scope = run(['keys', 'create', '--site', '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f', '--type', 'secret', '--scopes', 'query:read,everything'], env);
    expect(scope.code).toBe(1);
    expect(scope.stderr.trim()).toBe(`mallard: --scopes: unknown scope "everything" (one of ${SCOPES.join(', ')})`);
  });

  it('a bad --expires-in exits 1 with one line naming the option, before touching any store', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-cli-keys-'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'never.db')}` };
    const site = '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f';
    for (const value of ['30', '1w', '0d', '-5d', '1.5h', 'soon', '30 d']) {
      const res = run(['keys', 'create', '--site', site, '--type', 'secret', '--expires-in', value], env);
      expect(res.code, value).toBe(1);
      expect(res.stderr.trim(), value).toBe(`mallard: --expires-in must be a whole number of days, hours or minutes such as 30d, 12h or 90m, got "${value}"`);
    }
    const tooLong = run(['keys', 'create', '--site', site, '--type', 'secret', '--expires-in', '3651d'], env);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr.trim()).toBe('mallard: --expires-in must be at most 3650d (ten years), got "3651d"');
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  });
});

eachDialect('mallard keys create', ({ name, skip }) => {
  let store: TestStore;
  let app: App;
  let siteId: string;
  let orgId: string;
  const env = () => ({ DATABASE_URL: store.url });

  beforeAll(async () => {
    store = await createTestStore(name);
    app = await buildApp({ config: testConfig({ secret: SECRET }), store: store.store, clock: new ManualClock(Date.now()), limiter: new MemoryRateLimiter() });
    await app.ready();
    const boot = run(['bootstrap', '--org', 'Keys', '--site-name', 'Shop', '--site-url', 'https://shop.example', '--email', `keys-${name}@example.com`, '--password', 'correct-horse-battery', '--json'], env());
    expect(boot.code, boot.stderr).toBe(0);
    ({ site_id: siteId, org_id: orgId } = JSON.parse(boot.stdout));
  });
  afterAll(async () => {
    await app?.close();
    await store?.drop();
  });

  const whoami = (key: string) => app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { authorization: `Bearer ${key}` } });

  it.skipIf(skip)('mints a secret key with every scope by default; --json prints the record and the key once', async () => {
    const { code, stdout, stderr } = run(['keys', 'create', '--site', siteId, '--type', 'secret', '--json'], env());
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ org_id: orgId, site_id: siteId, key_type: 'secret', name: null, created_by: 'cli', expires_at: null });
    expect(out.key).toMatch(/^svc_sec_[0-9A-Za-z]{32,}$/);
    expect([...out.scopes].sort()).toEqual([...SCOPES].sort());
    expect(out.key_hint).toBe(`${out.key.slice(0, 8)}...${out.key.slice(-4)}`);

    const res = await whoami(out.key);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ site: { id: siteId }, key_type: 'secret' });

    const row = await store.store.db.selectFrom('api_keys').selectAll().where('id', '=', out.id).executeTakeFirstOrThrow();
    expect(row.key_hash).not.toContain(out.key);
    expect(JSON.stringify(row)).not.toContain(out.key);
    const audit = await store.store.db.selectFrom('audit_log').selectAll().where('target_id', '=', out.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'key.created', actor_type: 'system', org_id: orgId, site_id: siteId });
    expect(JSON.stringify(audit[0])).not.toContain(out.key);
  });

  it.skipIf(skip)('mints mcp and publishable keys with their fixed scopes; without --json prints the key on its own line', async () => {
    const mcp = run(['keys', 'create', '--site', siteId, '--type', 'mcp', '--name', 'assistant'], env());
    expect(mcp.code, mcp.stderr).toBe(0);
    const lines = mcp.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Created a mcp key for site ${siteId} \\(id [0-9a-f-]{36}; scopes mcp:read\\)$`));
    expect(lines[1]).toBe('Shown once, store it now:');
    const mcpKey = lines[2].trim();
    expect(mcpKey).toMatch(/^svc_mcp_[0-9A-Za-z]{32,}$/);
    expect((await whoami(mcpKey)).json().data).toMatchObject({ key_type: 'mcp', scopes: ['mcp:read'] });

    const pub = run(['keys', 'create', '--site', siteId, '--type', 'publishable', '--json'], env());
    expect(pub.code, pub.stderr).toBe(0);
    const out = JSON.parse(pub.stdout);
    expect(out.key).toMatch(/^svc_pub_/);
    expect(out.scopes).toEqual(['ingest:write']);
    // A publishable key only ingests.
    expect((await whoami(out.key)).json().error.code).toBe('missing_scope');
  });

  it.skipIf(skip)('--scopes narrows a secret key, and a scope the type cannot hold is one line', async () => {
    const narrow = run(['keys', 'create', '--site', siteId, '--type', 'secret', '--scopes', 'query:read', '--json'], env());
    expect(narrow.code, narrow.stderr).toBe(0);
    const key = JSON.parse(narrow.stdout).key;
    expect(JSON.parse(narrow.stdout).scopes).toEqual(['query:read']);
    expect((await whoami(key)).statusCode).toBe(200);
    const manage = await app.inject({ method: 'PATCH', url: `/v1/manage/site/${siteId}`, headers: { authorization: `Bearer ${key}` }, payload: { name: 'Renamed' } });
    expect(manage.json().error.code).toBe('missing_scope');

    const bad = run(['keys', 'create', '--site', siteId, '--type', 'publishable', '--scopes', 'query:read'], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('mallard: --scopes: publishable keys cannot hold query:read');
  });

  it.skipIf(skip)('an unknown or deleted site exits 1 with one line and mints nothing', async () => {
    const before = await store.store.db.selectFrom('api_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const unknown = '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f';
    const res = run(['keys', 'create', '--site', unknown, '--type', 'secret'], env());
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(`mallard: --site ${unknown} is not a site`);
    expect(res.stdout).toBe('');
    await store.store.db.updateTable('sites').set({ deleted_at: Date.now() }).where('id', '=', siteId).execute();
    try {
      const deleted = run(['keys', 'create', '--site', siteId, '--type', 'secret'], env());
      expect(deleted.code).toBe(1);
      expect(deleted.stderr.trim()).toBe(`mallard: --site ${siteId} is not a site`);
    } finally {
      await store.store.db.updateTable('sites').set({ deleted_at: null }).where('id', '=', siteId).execute();
    }
    const after = await store.store.db.selectFrom('api_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

eachDialect('mallard keys list and revoke', ({ name, skip }) => {
  let store: TestStore;
  let app: App;
  let siteId: string;
  let orgId: string;
  const clock = new ManualClock(Date.now());
  const env = () => ({ DATABASE_URL: store.url });

  beforeAll(async () => {
    store = await createTestStore(name);
    app = await buildApp({ config: testConfig({ secret: SECRET }), store: store.store, clock, limiter: new MemoryRateLimiter() });
    await app.ready();
    const boot = run(['bootstrap', '--org', 'List', '--site-name', 'Shop', '--site-url', 'https://shop.example', '--email', `list-${name}@example.com`, '--password', 'correct-horse-battery', '--json'], env());
    expect(boot.code, boot.stderr).toBe(0);
    ({ site_id: siteId, org_id: orgId } = JSON.parse(boot.stdout));
  });
  afterAll(async () => {
    await app?.close();
    await store?.drop();
  });

  it.skipIf(skip)('--help names the options; bad ids are one line', () => {
    const list = run(['keys', 'list', '--help']);
    expect(list.code).toBe(0);
    for (const option of ['--site <id>', '--org <id>', '--json']) expect(list.stdout).toContain(option);
    const revoke = run(['keys', 'revoke', '--help']);
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain('Usage: mallard keys revoke [options] <id>');
    const bad = run(['keys', 'revoke', 'nope'], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('mallard: the key id must be a UUID, got "nope"');
    const badSite = run(['keys', 'list', '--site', 'shop'], env());
    expect(badSite.code).toBe(1);
    expect(badSite.stderr.trim()).toBe('mallard: --site must be a site id (a UUID), got "shop"');
  });

  it.skipIf(skip)('list shows the active keys with their last use, never a key; revoke ends one, audited, and it is gone from the list', async () => {
    const made = JSON.parse(run(['keys', 'create', '--site', siteId, '--type', 'secret', '--name', 'reporting', '--json'], env()).stdout);
    expect((await app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { authorization: `Bearer ${made.key}` } })).statusCode).toBe(200);

    const listed = run(['keys', 'list', '--site', siteId, '--json'], env());
    expect(listed.code, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout).keys as { id: string; name: string | null; last_used_at: string | null; org_id: string }[];
    expect(keys).toHaveLength(4); // the three bootstrap keys and this one
    const mine = keys.find((k) => k.id === made.id)!;
    expect(mine).toMatchObject({ name: 'reporting', org_id: orgId, last_used_at: new Date(clock.now()).toISOString() });
    expect(listed.stdout).not.toContain(made.key);
    const text = run(['keys', 'list', '--org', orgId], env());
    expect(text.stdout.trim().split('\n')).toHaveLength(4);
    expect(text.stdout).toContain(`${made.id}  secret`);
    expect(text.stdout).toContain('reporting');
    expect(text.stdout).not.toContain(made.key);

    const revoked = run(['keys', 'revoke', made.id], env());
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(`Revoked key ${made.id}`);
    const audit = await store.store.db.selectFrom('audit_log').selectAll().where('target_id', '=', made.id).where('action', '=', 'key.revoked').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'system', org_id: orgId, site_id: siteId });
    expect((JSON.parse(run(['keys', 'list', '--site', siteId, '--json'], env()).stdout).keys as { id: string }[]).map((k) => k.id)).not.toContain(made.id);
    // This server process trusted the key a few seconds at most; past that it is refused.
    clock.advance(5000);
    const who = await app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { authorization: `Bearer ${made.key}` } });
    expect(who.json().error.code).toBe('invalid_key');
    const again = run(['keys', 'revoke', made.id], env());
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`mallard: no active key ${made.id}`);
  });

  it.skipIf(skip)('--expires-in sets the expiry from now: the key is listed active and works until then, and is expired_key after', async () => {
    const before = Date.now();
    const made = run(['keys', 'create', '--site', siteId, '--type', 'secret', '--scopes', 'query:read', '--expires-in', '90m', '--json'], env());
    const after = Date.now();
    expect(made.code, made.stderr).toBe(0);
    const out = JSON.parse(made.stdout);
    expect(out.status).toBe('active');
    const expiresAt = Date.parse(out.expires_at);
    // Ninety minutes from when the command ran (between the two readings of the wall clock).
    expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 90 * 60_000);

    const text = run(['keys', 'list', '--site', siteId], env());
    expect(text.stdout.split('\n').find((line) => line.startsWith(out.id))).toMatch(/^\S+ {2}secret {7}active {3}svc_sec_/);
    const human = run(['keys', 'create', '--site', siteId, '--type', 'mcp', '--expires-in', '12h'], env());
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(/; scopes mcp:read; expires \d{4}-\d{2}-\d{2}T[\d:.]+Z\)$/);

    const whoami = () => app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { authorization: `Bearer ${out.key}` } });
    expect((await whoami()).statusCode).toBe(200);
    clock.set(expiresAt);
    expect((await whoami()).json().error.code).toBe('expired_key');
  });
});
