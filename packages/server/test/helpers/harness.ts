// The suite factory: a Mallard app on a fresh, private store (SQLite in a temp dir, or a
// throwaway schema in the PostgreSQL database the run was given, never anything else), its
// clock, and the tenants tests start from: orgs with their owner, first site and keys, users
// at each role, and more keys. `eachDialect` and `useHarness` are how a suite runs on both
// dialects with one harness per dialect.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loggerOptions } from '../../src/http/logging.ts';
import { ManualClock, type Clock } from '../../src/clock.ts';
import { DEFAULT_OAUTH, DEFAULT_RATE_LIMITS, type Config, type RateLimits } from '../../src/config.ts';
import type { Scope, KeyType } from '../../src/auth/api-keys.ts';
import { signUserToken, JWT_DEFAULT_SECONDS } from '../../src/auth/jwt.ts';
import { hashPassword } from '../../src/auth/passwords.ts';
import { Secrets } from '../../src/auth/secrets.ts';
import type { Role } from '../../src/domain/context.ts';
import { systemResolver, targetPolicy, type Resolver } from '../../src/delivery/targets.ts';
import type { DeliveryDeps } from '../../src/delivery/handlers.ts';
import { MemoryRateLimiter, type RateLimiter } from '../../src/store/rate-limit.ts';
import { DEFAULT_READ_CACHE_MS, openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { bootstrapOrg, type BootstrapResult } from '../../src/features/orgs/bootstrap.ts';
import { DIALECTS, TEST_DATABASE_URL, type DialectName } from './services.ts';
import { recordAnswers } from './contract.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';
export const T0 = Date.UTC(2026, 10, 2, 12, 0, 30);
const MINUTE = 60_000;

/** Rate limits no suite reaches, for suites that are not about rate limits. */
const RAISED_LIMITS: RateLimits = { query: 1_000_000, manage: 1_000_000, ingest: 1_000_000, guide: 200, mcp: 1_000_000 };

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    env: 'test', port: 0, host: '127.0.0.1', databaseUrl: 'sqlite::memory:', redisUrl: null, secret: TEST_SECRET, previousSecret: null,
    logLevel: 'silent', rateLimits: { ...DEFAULT_RATE_LIMITS }, smtpUrl: null, demo: false,
    allowPrivateTargets: true, retentionDays: 90, auditRetentionDays: 365, sqliteReaders: 2, readCacheMs: DEFAULT_READ_CACHE_MS, sqliteSynchronous: 'normal', pipelineIntervalMs: 15 * 60_000, deliveryLeaseMs: 60_000, publicUrl: 'http://127.0.0.1:8787',
    providers: { slackApi: 'http://127.0.0.1:9/slack', pagerdutyEvents: 'http://127.0.0.1:9/pd', linearApi: 'http://127.0.0.1:9/linear', githubApi: 'http://127.0.0.1:9/github' },
    dataDir: tmpdir(), trustProxy: false, metricsToken: null, oauth: { ...DEFAULT_OAUTH }, ...overrides,
  };
}

export interface TestStore { store: Store; url: string; drop(): Promise<void> }

/** `clock`: the app's, so the read cache ages answers by the same clock as the requests. */
export async function createTestStore(dialect: DialectName, clock?: Clock): Promise<TestStore> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const store = openStore(url, { clock });
    await migrateToLatest(store.db);
    return { store, url, drop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const target = new URL(TEST_DATABASE_URL);
  target.searchParams.set('options', `-c search_path=${schema}`);
  const store = openStore(target.toString(), { poolSize: 5, clock });
  await migrateToLatest(store.db);
  return {
    store,
    url: target.toString(),
    drop: async () => {
      await store.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** An org as bootstrap makes it (owner, first site, site-scoped secret, mcp and publishable keys), with the owner's password and token. */
export type Org = BootstrapResult & { password: string; jwt: string };

/** A user added to an org at a role, with a token for that org. */
export interface User { userId: string; membershipId: string; email: string; password: string; role: Role; jwt: string }

export interface HarnessOptions {
  config?: Partial<Config>;
  /** RAISED_LIMITS instead of the contract's defaults (config.rateLimits still wins). */
  raisedLimits?: boolean;
  limiter?: RateLimiter;
  /** Start at the wall clock instead of T0 (receivers check signature timestamps against real time). */
  wallClock?: boolean;
  /** Keep every line the app logs (at the configured level) in `logs`. */
  captureLogs?: boolean;
  /** DNS for outbound targets (the app's system resolver otherwise). */
  resolver?: Resolver;
}

export interface Harness {
  app: App;
  store: Store;
  /** The store's address: a second connection to the same data opens it. */
  storeUrl: string;
  clock: ManualClock;
  secrets: Secrets;
  limiter: RateLimiter;
  config: Config;
  /** Every line the app logged, when captureLogs is on. */
  logs: string[];
  /** A new org with its owner, first site and three site-scoped keys. */
  org(name?: string): Promise<Org>;
  /** A new user in the org at the role (password USER_PASSWORD), with a token. */
  user(org: Org, role: Role): Promise<User>;
  /** A key made through POST /v1/manage/keys by the org's owner (org-scoped unless siteId is given). */
  key(org: Org, input: { type?: KeyType; scopes?: Scope[]; siteId?: string; name?: string; expiresAt?: number }): Promise<{ id: string; key: string }>;
  /** A user token through POST /v1/auth/login. */
  login(email: string, password: string, orgId?: string): Promise<string>;
  /** Delivery worker dependencies on the same store, with their own Secrets (as a separate process would have). */
  deliveryDeps(resolver?: Resolver): DeliveryDeps;
  /** Every answer so far that the served OpenAPI document does not describe exactly. */
  contractViolations(): Promise<string[]>;
  close(): Promise<void>;
}

const USER_PASSWORD = 'member-password-1';
let userHash: Promise<string> | null = null;
let counter = 0;

export async function createHarness(dialect: DialectName, options: HarnessOptions = {}): Promise<Harness> {
  const clock = new ManualClock(options.wallClock ? Date.now() : T0);
  const testStore = await createTestStore(dialect, clock);
  const { store } = testStore;
  const rateLimits = options.raisedLimits ? { ...RAISED_LIMITS } : { ...DEFAULT_RATE_LIMITS };
  const config = testConfig({ rateLimits, ...(options.captureLogs ? { logLevel: 'trace' } : {}), ...options.config });
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const resolver = options.resolver ?? systemResolver;
  const logs: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } });
  const app = await buildApp({
    config, store, clock, limiter, resolver,
    // As server.ts configures it, with every level kept and the lines captured.
    ...(options.captureLogs ? { logger: loggerOptions(config.logLevel, stream) } : {}),
  });
  const answers = recordAnswers(app);
  await app.ready();
  const secrets = new Secrets(config.secret, config.previousSecret);
  const token = async (userId: string, orgId: string) => (await signUserToken(secrets, userId, orgId, clock.now(), JWT_DEFAULT_SECONDS)).token;

  const harness: Harness = {
    app, store, storeUrl: testStore.url, clock, secrets, limiter, config, logs,
    contractViolations: () => answers.violations(),
    async org(name = 'Org') {
      const n = ++counter;
      const password = `password-${n}-${randomBytes(4).toString('hex')}`;
      const result = await bootstrapOrg(store, secrets, {
        org: `${name} ${n}`, siteName: `${name} site`, siteUrl: `https://site${n}.example`,
        email: `owner${n}-${randomBytes(3).toString('hex')}@example.com`, password,
      }, clock.now());
      return { ...result, password, jwt: await token(result.user_id, result.org_id) };
    },
    async user(org, role) {
      const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
      const now = clock.now();
      const userId = uuidv7();
      const membershipId = uuidv7();
      await store.db.insertInto('users').values({ id: userId, email, password_hash: await (userHash ??= hashPassword(USER_PASSWORD)), name: null, created_at: now, updated_at: now }).execute();
      await store.db.insertInto('memberships').values({ id: membershipId, org_id: org.org_id, user_id: userId, role, created_at: now, updated_at: now }).execute();
      return { userId, membershipId, email, password: USER_PASSWORD, role, jwt: await token(userId, org.org_id) };
    },
    async key(org, input) {
      const payload = {
        key_type: input.type ?? 'secret',
        ...(input.scopes ? { scopes: input.scopes } : {}),
        ...(input.siteId ? { site_id: input.siteId } : {}),
        ...(input.name ? { name: input.name } : {}),
        ...(input.expiresAt === undefined ? {} : { expires_at: new Date(input.expiresAt).toISOString() }),
      };
      const res = await app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(await token(org.user_id, org.org_id)), payload });
      if (res.statusCode !== 201) throw new Error(`key ${JSON.stringify(payload)} failed: ${res.body}`);
      const data = res.json().data as { id: string; key: string };
      return { id: data.id, key: data.key };
    },
    async login(email, password, orgId) {
      const res = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: orgId ? { email, password, org_id: orgId } : { email, password } });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.body}`);
      return res.json().data.token as string;
    },
    deliveryDeps(workerResolver = resolver) {
      return { store, clock, config, secrets: new Secrets(config.secret, config.previousSecret), policy: targetPolicy(config, workerResolver) };
    },
    async close() {
      await app.close();
      await testStore.drop();
    },
  };
  return harness;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The org's audit rows after its bootstrap, oldest first (only those of `action` when given). */
export async function auditRows(store: Store, orgId: string, action?: string) {
  let query = store.db.selectFrom('audit_log').selectAll().where('org_id', '=', orgId).where('action', '!=', 'org.bootstrapped');
  if (action) query = query.where('action', '=', action);
  return query.orderBy('created_at').orderBy('id').execute();
}

export interface Dialect { name: DialectName; skip: boolean }

/**
 * Describes the suite once per dialect, as "<title> on <dialect>"; an unavailable dialect is
 * listed as skipped, and so is every dialect when `skip` says another service it needs is missing.
 */
export function eachDialect(title: string, body: (dialect: Dialect) => void, options: { skip?: boolean } = {}) {
  for (const dialect of DIALECTS) {
    describe.skipIf(dialect.skip || (options.skip ?? false))(`${title} on ${dialect.name}`, () => body(dialect));
  }
}

export interface SuiteOptions extends HarnessOptions {
  /** Move the clock a minute before each test, so per-minute counters (failed logins) never carry over. */
  newMinuteEachTest?: boolean;
}

/**
 * One harness for the enclosing describe: built before its tests (after the beforeAll hooks
 * registered above this call, so options given as a function may use what they start), closed
 * after them. The harness only exists once beforeAll has run, so this returns a stand-in that
 * forwards to it; use it inside hooks and tests.
 */
export function useHarness(dialect: DialectName, options: SuiteOptions | (() => SuiteOptions) = {}): Harness {
  let current: Harness | undefined;
  let newMinuteEachTest = false;
  beforeAll(async () => {
    const settings = typeof options === 'function' ? options() : options;
    newMinuteEachTest = settings.newMinuteEachTest ?? false;
    current = await createHarness(dialect, settings);
  });
  afterAll(async () => {
    if (!current) return;
    // Every answer the suite provoked must be one the OpenAPI document describes.
    const violations = await current.contractViolations();
    await current.close();
    expect(violations, 'answers the OpenAPI document does not describe').toEqual([]);
  });
  beforeEach(() => { if (newMinuteEachTest) current?.clock.advance(MINUTE); });
  return new Proxy({} as Harness, {
    get(_target, property) {
      if (!current) throw new Error('The harness is built in beforeAll: use it inside hooks and tests');
      return Reflect.get(current, property);
    },
  });
}
