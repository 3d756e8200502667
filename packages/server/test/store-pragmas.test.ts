// The SQLite connection's settings: WAL, a busy timeout, NORMAL sync and foreign keys, set with
// exec (no statement left to the garbage collector; see store/db.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/db.ts';

describe('SQLite connection settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mallard-pragmas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a file store in WAL with busy_timeout 5000, synchronous NORMAL and foreign keys on', async () => {
    const store = openStore(`sqlite:${join(dir, 'p.db')}`);
    const read = async (name: string) => Object.values((await sql.raw(`PRAGMA ${name}`).execute(store.db)).rows[0] as object)[0];
    expect(await read('journal_mode')).toBe('wal');
    expect(await read('busy_timeout')).toBe(5000);
    expect(await read('synchronous')).toBe(1);
    expect(await read('foreign_keys')).toBe(1);
    await store.close();
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
