// A Mallard app on a fresh, private store: SQLite in a temp dir, or a throwaway schema in
// the PostgreSQL database the run was given (never anything else). Each suite builds its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp, type App } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { DEFAULT_RATE_LIMITS, type Config } from '../../src/config.ts';
import { Secrets } from '../../src/auth/secrets.ts';
import { MemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limit.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { bootstrapOrg, type BootstrapResult } from '../../src/features/orgs/bootstrap.ts';
import { TEST_DATABASE_URL, type DialectName } from './services.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';
export const T0 = Date.UTC(2026, 10, 2, 12, 0, 30);

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    env: 'test', port: 0, host: '127.0.0.1', databaseUrl: 'sqlite::memory:', redisUrl: null, secret: TEST_SECRET,
    logLevel: 'silent', rateLimits: { ...DEFAULT_RATE_LIMITS }, smtpUrl: null, demo: false,
    allowPrivateTargets: true, retentionDays: 90, pipelineIntervalMs: 15 * 60_000, publicUrl: 'http://127.0.0.1:8787',
    providers: { slackApi: 'http://127.0.0.1:9/slack', pagerdutyEvents: 'http://127.0.0.1:9/pd', linearApi: 'http://127.0.0.1:9/linear', githubApi: 'http://127.0.0.1:9/github' },
    dataDir: tmpdir(), ...overrides,
  };
}

export interface TestStore { store: Store; url: string; drop(): Promise<void> }

export async function createTestStore(dialect: DialectName): Promise<TestStore> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const store = openStore(url);
    await migrateToLatest(store.db);
    return { store, url, drop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const target = new URL(TEST_DATABASE_URL);
  target.searchParams.set('options', `-c search_path=${schema}`);
  const store = openStore(target.toString(), { poolSize: 5 });
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

export interface Harness {
  app: App;
  store: Store;
  clock: ManualClock;
  secrets: Secrets;
  limiter: RateLimiter;
  /** A new org with its owner, first site and three keys. */
  org(name?: string): Promise<BootstrapResult & { password: string }>;
  login(email: string, password: string, orgId?: string): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

export async function createHarness(dialect: DialectName, options: { config?: Partial<Config>; limiter?: RateLimiter } = {}): Promise<Harness> {
  const testStore = await createTestStore(dialect);
  const clock = new ManualClock(T0);
  const config = testConfig(options.config);
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const app = await buildApp({ config, store: testStore.store, clock, limiter });
  await app.ready();
  const secrets = new Secrets(config.secret);
  const harness: Harness = {
    app, store: testStore.store, clock, secrets, limiter,
    async org(name = 'Org') {
      const n = ++counter;
      const password = `password-${n}-${randomBytes(4).toString('hex')}`;
      const result = await bootstrapOrg(testStore.store, secrets, {
        org: `${name} ${n}`, siteName: `${name} site`, siteUrl: `https://site${n}.example`,
        email: `owner${n}-${randomBytes(3).toString('hex')}@example.com`, password,
      }, clock.now());
      return { ...result, password };
    },
    async login(email, password, orgId) {
      const res = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: orgId ? { email, password, org_id: orgId } : { email, password } });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.body}`);
      return res.json().data.token as string;
    },
    async close() {
      await app.close();
      await testStore.drop();
    },
  };
  return harness;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
