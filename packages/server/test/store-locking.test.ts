// Two processes on one SQLite file (the server and `mallard pipeline`, or a worker): a
// transaction that reads and then writes must wait for the other's write lock, never fail.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/db.ts';

const WRITER = fileURLToPath(new URL('./helpers/sqlite-writer.ts', import.meta.url));
const PER_PROCESS = 150;

function runWriter(url: string): Promise<{ failed: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, url, String(PER_PROCESS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer exited with ${code}`))));
  });
}

describe('SQLite shared by two processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mallard-locking-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('read-then-write transactions from both wait for each other: none fails, none is lost', async () => {
    const url = `sqlite:${join(dir, 'shared.db')}`;
    const store = openStore(url);
    await sql`create table writes (id integer primary key, seen integer not null)`.execute(store.db);
    const results = await Promise.all([runWriter(url), runWriter(url)]);
    expect(results).toEqual([{ failed: 0 }, { failed: 0 }]);
    const { rows } = await sql<{ n: number; distinct_seen: number }>`select count(*) as n, count(distinct seen) as distinct_seen from writes`.execute(store.db);
    // Every transaction saw every earlier one: the counts it read are all different.
    expect(rows[0]).toEqual({ n: 2 * PER_PROCESS, distinct_seen: 2 * PER_PROCESS });
    await store.close();
  }, 120_000);
});
