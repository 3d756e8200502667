// The SQLite connection's settings: WAL, a busy timeout, NORMAL sync (FULL with
// MALLARD_SQLITE_SYNCHRONOUS=full), foreign keys and secure_delete, set with exec (no statement left to the
// garbage collector; see store/db.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { openStore } from '../src/store/db.ts';
import { testConfig } from './helpers/harness.ts';

describe('SQLite connection settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mallard-pragmas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a file store in WAL with busy_timeout 5000, synchronous NORMAL, foreign keys and secure_delete on', async () => {
    const store = openStore(`sqlite:${join(dir, 'p.db')}`);
    const read = async (name: string) => Object.values((await sql.raw(`PRAGMA ${name}`).execute(store.db)).rows[0] as object)[0];
    expect(await read('journal_mode')).toBe('wal');
    expect(await read('busy_timeout')).toBe(5000);
    expect(await read('synchronous')).toBe(1);
    expect(await read('foreign_keys')).toBe(1);
    // Deleted rows are overwritten with zeros (docs/privacy.md, "Erased from the files").
    expect(await read('secure_delete')).toBe(1);
    await store.close();
  });

  it('MALLARD_SQLITE_SYNCHRONOUS=full opens the store with synchronous FULL (2); normal (the default) with NORMAL (1)', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'config.db')}`, MALLARD_SECRET: 'x'.repeat(40) };
    const synchronousOf = async (setting: 'normal' | 'full') => {
      const store = openStore(`sqlite:${join(dir, `sync-${setting}.db`)}`, { sqliteSynchronous: setting });
      const row = (await sql.raw('PRAGMA synchronous').execute(store.db)).rows[0] as { synchronous: number };
      await store.close();
      return row.synchronous;
    };
    expect(loadConfig(env).sqliteSynchronous).toBe('normal');
    expect(loadConfig({ ...env, MALLARD_SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous).toBe('full');
    expect(await synchronousOf(loadConfig({ ...env, MALLARD_SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous)).toBe(2);
    expect(await synchronousOf(loadConfig({ ...env, MALLARD_SQLITE_SYNCHRONOUS: 'normal' }).sqliteSynchronous)).toBe(1);
    for (const bad of ['off', 'extra', '2', 'yes']) {
      expect(() => loadConfig({ ...env, MALLARD_SQLITE_SYNCHRONOUS: bad }), bad)
        .toThrow(new ConfigError(`MALLARD_SQLITE_SYNCHRONOUS must be normal or full, got "${bad}"`));
    }
  });

  it('the server opens its store with the configured synchronous setting', async () => {
    const server = await startServer(testConfig({ databaseUrl: `sqlite:${join(dir, 'served.db')}`, sqliteSynchronous: 'full' }), undefined, { worker: false });
    const row = (await sql.raw('PRAGMA synchronous').execute(server.store.db)).rows[0] as { synchronous: number };
    await server.stop();
    expect(row.synchronous).toBe(2);
  });

  it('reuses a query left part-way through a stream (its kept statement is reset, not left busy)', async () => {
    const store = openStore(`sqlite:${join(dir, 'q.db')}`);
    await sql`create table t (n integer)`.execute(store.db);
    for (let i = 0; i < 5; i++) await sql`insert into t (n) values (${i})`.execute(store.db);
    const query = () => store.db.selectFrom('t' as never).select('n' as never).orderBy('n' as never);
    for (let round = 0; round < 3; round++) {
      for await (const row of query().stream() as AsyncIterable<{ n: number }>) {
        expect(row.n).toBe(0);
        break;
      }
      expect((await query().execute() as { n: number }[]).map((r) => r.n)).toEqual([0, 1, 2, 3, 4]);
    }
    await store.close();
  });
});
