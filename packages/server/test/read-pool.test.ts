// The SQLite read pool: reads on worker threads with their own read-only connections, a read
// that sees the write committed just before it, and a clean shutdown. The query routes run
// through it (the app test), so every suite on a SQLite file exercises it too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { hex32, queryOk, send } from './helpers/ingest-kit.ts';

const served = (store: Store) => store.readPool!.stats().reduce((n, r) => n + r.served, 0);

describe('SQLite read pool', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  async function fileStore(readers = 2) {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-readpool-'));
    dirs.push(dir);
    const store = openStore(`sqlite:${join(dir, 'r.db')}`, { sqliteReaders: readers });
    stores.push(store);
    await migrateToLatest(store.db);
    return store;
  }

  it('answers a read on another thread, and sees the row the main connection committed just before', async () => {
    const store = await fileStore();
    expect(store.readDb).not.toBe(store.db);
    await store.db.insertInto('orgs').values({ id: 'org-1', name: 'First', created_at: 1 } as never).execute();
    const rows = await store.readDb.selectFrom('orgs').select(['id', 'name']).execute();
    expect(rows).toEqual([{ id: 'org-1', name: 'First' }]);
    const stats = store.readPool!.stats();
    const used = stats.filter((r) => r.served > 0);
    expect(used).toHaveLength(1);
    expect(used[0].threadId).not.toBeNull();
    expect(used[0].threadId).not.toBe(threadId);

    // Every write is visible to the next read, on whichever reader.
    for (let i = 2; i <= 6; i++) {
      await store.db.insertInto('orgs').values({ id: `org-${i}`, name: `Org ${i}`, created_at: i } as never).execute();
      const [{ n }] = await store.readDb.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).execute();
      expect(n).toBe(i);
    }
  });

  it('runs concurrent reads on every reader, and its connections are read-only', async () => {
    const store = await fileStore(2);
    const reads = Array.from({ length: 8 }, () => store.readDb.selectFrom('orgs').selectAll().execute());
    await Promise.all(reads);
    const stats = store.readPool!.stats();
    expect(stats.every((r) => r.served > 0)).toBe(true);
    expect(new Set(stats.map((r) => r.threadId)).size).toBe(2);
    await expect(store.readDb.insertInto('orgs').values({ id: 'x', name: 'x', created_at: 1 } as never).execute())
      .rejects.toThrow(/readonly/);
  });

  it('keeps a read transaction on one reader and reports SQL errors as errors', async () => {
    const store = await fileStore(2);
    const n = await store.readDb.transaction().execute(async (trx) => {
      const a = await trx.selectFrom('orgs').selectAll().execute();
      const b = await trx.selectFrom('sites').selectAll().execute();
      return a.length + b.length;
    });
    expect(n).toBe(0);
    await expect(store.readDb.selectFrom('no_such_table' as never).selectAll().execute()).rejects.toThrow(/no such table/);
  });

  it('stops its threads on close', async () => {
    const store = await fileStore(2);
    await Promise.all([store.readDb.selectFrom('orgs').selectAll().execute(), store.readDb.selectFrom('orgs').selectAll().execute()]);
    expect(store.readPool!.stats().some((r) => r.threadId !== null)).toBe(true);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(store.readPool!.stats().every((r) => r.threadId === null)).toBe(true);
  });

  it('MALLARD_SQLITE_READERS sizes the pool; 0 reads on the main connection', async () => {
    const env = { MALLARD_SECRET: 'read-pool-test-secret-0123456789abcdef', DATABASE_URL: 'sqlite::memory:' };
    expect(loadConfig(env).sqliteReaders).toBe(2);
    expect(loadConfig({ ...env, MALLARD_SQLITE_READERS: '3' }).sqliteReaders).toBe(3);
    expect(loadConfig({ ...env, MALLARD_SQLITE_READERS: '0' }).sqliteReaders).toBe(0);
    expect(() => loadConfig({ ...env, MALLARD_SQLITE_READERS: '17' })).toThrow(ConfigError);
    expect((await fileStore(3)).readPool!.stats()).toHaveLength(3);
    const off = await fileStore(0);
    expect(off.readDb).toBe(off.db);
    expect(off.readPool).toBeNull();
  });

  it('falls back to the main connection where threads cannot share the database', () => {
    const memory = openStore('sqlite::memory:');
    stores.push(memory);
    expect(memory.readDb).toBe(memory.db);
    expect(memory.readPool).toBeNull();
  });
});

eachDialect('query routes read through the read connection', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });

  it.skipIf(skip)('a query right after an ingest sees its rows (on SQLite, through a reader thread)', async () => {
    const org = await h.org('Reads');
    const sid = hex32();
    const before = h.store.readPool ? served(h.store) : 0;
    await send(h, org, sid, [{ type: 'pageview', ts: h.clock.now() - 1000, page: '/checkout' }]);
    const data = await queryOk(h, org.keys.secret, `/v1/query/raw?table=sessions`);
    expect(data.rows.map((r: { sid: string }) => r.sid)).toContain(sid);
    if (name === 'sqlite') expect(served(h.store)).toBeGreaterThan(before);
    else expect(h.store.readDb).toBe(h.store.db);
  });
});
