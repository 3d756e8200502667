// An empty store of a dialect, in its own file or schema, for migration tests that build an
// older schema by hand before migrating it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/db.ts';
import { TEST_DATABASE_URL } from './services.ts';

/** An empty store of the dialect, in its own file or schema, and how to throw it away. */
export async function emptyStore(dialect: 'sqlite' | 'postgres'): Promise<{ store: Store; schema?: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-migration-'));
    const store = openStore(`sqlite:${join(dir, 'old.db')}`, { sqliteReaders: 0 });
    return { store, drop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const store = openStore(url.toString(), { poolSize: 2 });
  return { store, schema, drop: async () => { await store.close(); await admin.query(`DROP SCHEMA ${schema} CASCADE`); await admin.end(); } };
}

