// One Kysely instance per process, over SQLite (better-sqlite3, WAL) or PostgreSQL (pg),
// chosen by DATABASE_URL. Everything above this file is dialect-neutral.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type Driver } from 'kysely';
import pg from 'pg';
import type { Database } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  ping(): Promise<void>;
}

// PostgreSQL returns BIGINT as a string; our bigints are epoch milliseconds, safe as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));

export function parseDatabaseUrl(url: string): { dialect: Dialect; target: string } {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new Error('DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/mallard.db');
    return { dialect: 'sqlite', target: path };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return { dialect: 'postgres', target: url };
  }
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

export function openStore(url: string, options: { poolSize?: number } = {}): Store {
  const { dialect, target } = parseDatabaseUrl(url);
  if (dialect === 'sqlite') {
    if (target !== ':memory:') mkdirSync(dirname(target), { recursive: true });
    const file = new SQLite(target);
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 5000');
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: file }) });
    return {
      db,
      dialect,
      close: () => db.destroy(),
      ping: async () => { await sql`select 1`.execute(db); },
    };
  }
  const pool = new pg.Pool({ connectionString: target, max: options.poolSize ?? 10 });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect,
    close: () => db.destroy(),
    ping: async () => { await sql`select 1`.execute(db); },
  };
}

/**
 * SQLite transactions that take the write lock when they begin. A deferred transaction that
 * reads and then writes fails at once ("database is locked") when another process (the server,
 * a worker, `mallard pipeline`) committed in between; an immediate one waits for the lock
 * (busy_timeout) instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => { await connection.executeQuery(CompiledQuery.raw('begin immediate')); };
    return driver;
  }
}
