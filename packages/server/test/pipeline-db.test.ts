// store.pipelineDb, what the scheduler runs cycles on: on a SQLite file its plain selects go to
// the pipeline's own reader (store.pipelineReadPool, never the routes' readPool) and everything else (writes, raw SQL, every statement of a transaction) to the
// main connection (store/split-dialect.ts). A cycle through it stores exactly what a cycle
// through `db` stores; its selects are served by the pool's threads, none by the main
// connection; the main thread serves other work while a cycle's read is in the pool; a
// transaction stays whole on the main connection; a select sees the write committed just before.
// On PostgreSQL (and ':memory:') pipelineDb is `db`, and the same cycles store the same rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import { generatePlan } from '../src/simulate/generate.ts';
import { seedStore } from '../src/simulate/run.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { DAY_MS } from '../src/domain/time.ts';
import { createTestStore, eachDialect, testConfig, type TestStore } from './helpers/harness.ts';
import type { DialectName } from './helpers/services.ts';
import { selectsOnMainConnection } from './helpers/query-spy.ts';

const END = Date.UTC(2026, 10, 20, 15, 0, 0);
const INTERVAL = 15 * 60_000;
/** Two days of the simulator's story: traffic, planted friction, deploys, fixes, alert rules. */
const PLAN = generatePlan({ days: 2, sessionsPerDay: 60, seed: 'split', end: END });
const SLOW = { timeout: 300_000 };

/** Selects answered by the pipeline's reader. */
const served = (store: Store) => store.pipelineReadPool!.stats().reduce((n, r) => n + r.served, 0);
const servedForRoutes = (store: Store) => store.readPool!.stats().reduce((n, r) => n + r.served, 0);

/** A store with one site filled by the simulator, its backfill cycles run on `cycles`. */
async function seeded(dialect: DialectName, cycles: 'db' | 'pipelineDb' | 'none') {
  const test = await createTestStore(dialect);
  const config = testConfig({ databaseUrl: test.url, pipelineIntervalMs: INTERVAL });
  const org = await bootstrapOrg(test.store, new Secrets(config.secret), { org: 'Split', siteName: 'Split', siteUrl: 'https://split.example', email: 'split@example.com', password: 'password-split-1' }, PLAN.start - DAY_MS);
  await seedStore({
    store: test.store, config, siteId: org.site_id, secretKey: org.keys.secret, plan: PLAN, deliver: false,
    pipeline: cycles !== 'none', ...(cycles === 'pipelineDb' ? { cycleDb: test.store.pipelineDb } : {}),
  });
  return { test, siteId: org.site_id };
}

/** What the cycles stored, without the ids they drew and the site's id (two stores never share them; an issue's fingerprint hashes the site). */
async function stored(store: Store, siteId: string) {
  const db = store.db;
  const strip = (rows: Record<string, unknown>[]) =>
    rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !['id', 'site_id', 'fingerprint'].includes(k)).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))).sort();
  const rules = new Map((await db.selectFrom('alert_rules').select(['id', 'name']).where('site_id', '=', siteId).execute()).map((r) => [r.id, r.name]));
  const alerts = (await db.selectFrom('alerts').selectAll().where('site_id', '=', siteId).execute()).map((a) => ({ ...a, rule_id: rules.get(a.rule_id ?? '') ?? null }));
  return {
    page_scores: strip(await db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId).execute() as never),
    score_history: strip(await db.selectFrom('score_history').selectAll().where('site_id', '=', siteId).execute() as never),
    site_score_history: strip(await db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId).execute() as never),
    ux_issues: strip(await db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).execute() as never),
    deploys: strip(await db.selectFrom('deploys').select(['version', 'deployed_at', 'confusion_before', 'confusion_after', 'delta', 'pages_after', 'after_computed_at']).where('site_id', '=', siteId).execute() as never),
    alerts: strip(alerts as never),
  };
}

eachDialect('a cycle through store.pipelineDb', ({ name }) => {
  const stores: TestStore[] = [];
  afterEach(async () => { for (const s of stores.splice(0)) await s.drop(); });

  it('stores exactly the rows a cycle through db stores, on the same data (the simulator\'s two days)', SLOW, async () => {
    const throughDb = await seeded(name, 'db');
    stores.push(throughDb.test);
    const throughSplit = await seeded(name, 'pipelineDb');
    stores.push(throughSplit.test);
    // On PostgreSQL it is db itself: nothing changes there.
    if (name === 'sqlite') expect(throughSplit.test.store.pipelineDb).not.toBe(throughSplit.test.store.db);
    else expect(throughSplit.test.store.pipelineDb).toBe(throughSplit.test.store.db);
    const a = await stored(throughDb.test.store, throughDb.siteId);
    const b = await stored(throughSplit.test.store, throughSplit.siteId);
    // The story leaves something in every table, so the comparison compares something.
    for (const rows of Object.values(a)) expect(rows.length).toBeGreaterThan(0);
    expect(a.deploys.some((d) => JSON.parse(d).confusion_after !== null)).toBe(true);
    expect(b).toEqual(a);
  });

  it('keeps a transaction whole on the main connection: a select inside sees the write before it, a rollback undoes it', async () => {
    const { store } = await createTestStore(name).then((t) => { stores.push(t); return t; });
    const before = store.pipelineReadPool ? served(store) : 0;
    await expect(store.pipelineDb.transaction().execute(async (trx) => {
      await trx.insertInto('orgs').values({ id: 'org-in-trx', name: 'Inside', created_at: 1 } as never).execute();
      const seen = await trx.selectFrom('orgs').select('name').where('id', '=', 'org-in-trx').executeTakeFirst();
      expect(seen).toEqual({ name: 'Inside' });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    if (store.pipelineReadPool) expect(served(store)).toBe(before);
    expect(await store.db.selectFrom('orgs').select('id').where('id', '=', 'org-in-trx').execute()).toEqual([]);
  });
});

describe('store.pipelineDb on a SQLite file', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const tests: TestStore[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const s of stores.splice(0)) await s.close();
    for (const t of tests.splice(0)) await t.drop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function fileStore(readers: number) {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-split-'));
    dirs.push(dir);
    const store = openStore(`sqlite:${join(dir, 's.db')}`, { sqliteReaders: readers });
    stores.push(store);
    await migrateToLatest(store.db);
    return store;
  }

  it('is db where there is no read pool', async () => {
    const memory = openStore('sqlite::memory:');
    stores.push(memory);
    expect(memory.pipelineDb).toBe(memory.db);
    expect(memory.pipelineReadPool).toBeNull();
    const off = await fileStore(0);
    expect(off.pipelineDb).toBe(off.db);
    expect(off.pipelineReadPool).toBeNull();
  });

  it('reads on its own thread, never the routes\' readers: a cycle finishes while every route reader is taken', SLOW, async () => {
    const { test, siteId } = await seeded('sqlite', 'none');
    tests.push(test);
    const { store } = test;
    expect(store.pipelineReadPool!.readers).toHaveLength(1);
    const routes = store.readPool!;
    const held = await Promise.all(routes.readers.map(() => routes.acquireConnection()));
    const routesBefore = servedForRoutes(store);
    const before = served(store);
    try {
      // Were the cycle's selects queued behind the routes' readers, this would never settle.
      const result = await Promise.race([
        runCycle(store.pipelineDb, siteId, END, { intervalMs: INTERVAL, clock: new ManualClock(END) }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the cycle waited for a route reader')), 60_000)),
      ]);
      expect(result.status).toBe('done');
    } finally {
      for (const reader of held) await routes.releaseConnection(reader);
    }
    expect(served(store) - before).toBeGreaterThan(5);
    expect(servedForRoutes(store)).toBe(routesBefore);
  });

  it('answers a select with the write committed just before it, on a reader that already read', async () => {
    // One reader, so the select after the write is served by the thread that read before it.
    const store = await fileStore(1);
    const count = async () => Number((await store.pipelineDb.selectFrom('orgs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count()).toBe(0);
    for (let i = 1; i <= 3; i++) {
      await store.pipelineDb.insertInto('orgs').values({ id: `org-${i}`, name: `Org ${i}`, created_at: i } as never).execute();
      expect(await count()).toBe(i);
    }
    expect(served(store)).toBe(4);
  });

  it('serves the cycle\'s selects from the pool\'s threads, and runs none of them on the main connection', SLOW, async () => {
    const { test, siteId } = await seeded('sqlite', 'none');
    tests.push(test);
    const { store } = test;
    // Every statement the main connection answers with rows, and whether a transaction was open.
    const outside = selectsOnMainConnection(store.db);
    const before = served(store);
    for (let at = END - 2 * 60 * 60_000; at <= END; at += INTERVAL) {
      expect((await runCycle(store.pipelineDb, siteId, at, { intervalMs: INTERVAL, clock: new ManualClock(at) })).status).toBe('done');
    }
    expect(outside).toEqual([]);
    // Scoring, deploys, clustering, verification and alerts each read a few times per cycle.
    expect(served(store) - before).toBeGreaterThan(9 * 10);
    // The spy does see the main connection's selects (so the empty list above means something).
    await store.db.selectFrom('sites').select('id').execute();
    expect(outside).toHaveLength(1);
  });

  it('keeps the main thread free while a cycle\'s read is in the pool: a write on db commits before that read answers', SLOW, async () => {
    const { test, siteId } = await seeded('sqlite', 'none');
    tests.push(test);
    const { store } = test;
    const pool = store.pipelineReadPool!;
    // Every reader taken, so the cycle's first read waits in the pool for as long as the test says.
    const held = await Promise.all(pool.readers.map(() => pool.acquireConnection()));
    let parked!: () => void;
    const inPool = new Promise<void>((resolve) => { parked = resolve; });
    const acquire = pool.acquireConnection.bind(pool);
    vi.spyOn(pool, 'acquireConnection').mockImplementation(() => { parked(); return acquire(); });

    let settled = false;
    const cycle = runCycle(store.pipelineDb, siteId, END, { intervalMs: INTERVAL, clock: new ManualClock(END) }).finally(() => { settled = true; });
    await Promise.race([inPool, cycle.then(() => { throw new Error('the cycle finished without reading through the pool'); })]);

    // The main thread turns and the main connection writes while the cycle's read is outstanding.
    await new Promise((resolve) => setImmediate(resolve));
    await store.db.insertInto('annotations').values({ id: 'a-during', site_id: siteId, page: null, message: 'during the cycle', author: null, created_at: END } as never).execute();
    expect(await store.db.selectFrom('annotations').select('id').where('id', '=', 'a-during').execute()).toEqual([{ id: 'a-during' }]);
    expect(settled).toBe(false);

    for (const reader of held) await pool.releaseConnection(reader);
    const result = await cycle;
    expect(result.status).toBe('done');
  });

  it('holds the main connection for the whole transaction: a statement on db waits for it and is not part of it', async () => {
    const store = await fileStore(2);
    let outsideDone = false;
    let outside!: Promise<unknown>;
    await expect(store.pipelineDb.transaction().execute(async (trx) => {
      await trx.insertInto('orgs').values({ id: 'org-trx', name: 'Inside', created_at: 1 } as never).execute();
      outside = store.db.insertInto('orgs').values({ id: 'org-outside', name: 'Outside', created_at: 2 } as never).execute().then(() => { outsideDone = true; });
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(outsideDone).toBe(false);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await outside;
    expect((await store.db.selectFrom('orgs').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['org-outside']);
  });
});
