// One Kysely instance per process, over SQLite (better-sqlite3, WAL) or PostgreSQL (pg),
// chosen by DATABASE_URL. Everything above this file is dialect-neutral.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type Driver } from 'kysely';
import pg from 'pg';
import type { Clock } from '../clock.ts';
import { ReadCache } from './read-cache.ts';
import { ReadPool, ReadPoolDialect } from './read-pool.ts';
import { SplitDialect } from './split-dialect.ts';
import { faultWatchedDialect } from './fault-watch.ts';
import { StoreFaultEpisodes, storeLocation } from './store-faults.ts';
import { registerTableChanges, TableChanges, trackedDialect } from './table-changes.ts';
import type { Database } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  /**
   * For pure reads. On a SQLite file: the read pool (store/read-pool.ts), worker threads with
   * their own read-only connections, so a slow read never stalls the main thread. Elsewhere
   * (PostgreSQL has its own pool; ':memory:' cannot be shared across threads) it is `db`.
   */
  readDb: Kysely<Database>;
  /**
   * For background work that reads much and writes some (the pipeline cycle). On a SQLite file
   * with a read pool: a plain select outside a transaction runs on the pipeline's own reader
   * (pipelineReadPool), everything else (writes, raw SQL, every statement of a transaction) on
   * the main connection (store/split-dialect.ts). Elsewhere it is `db`.
   */
  pipelineDb: Kysely<Database>;
  /** The SQLite read pool of the query routes, when there is one. */
  readPool: ReadPool | null;
  /**
   * One reader thread of the pipeline's own, beside readPool: a cycle's reads of its windows
   * take seconds on a busy site, and queued in readPool they held the routes' reads behind them.
   */
  pipelineReadPool: ReadPool | null;
  /**
   * Pure reads that may wait (background work: a deploy's before-rates, which count a week of
   * events): on a SQLite file the pipeline's reader, so they neither stall the main thread nor
   * keep the routes' reads waiting for a reader. Elsewhere it is `readDb`.
   */
  backgroundReadDb: Kysely<Database>;
  /** The tables this process has written, and when (store/table-changes.ts). */
  changes: TableChanges;
  /** Short-lived answers of read routes, forgotten when a table they read changes (store/read-cache.ts). */
  readCache: ReadCache;
  dialect: Dialect;
  /** Outages and full disks met, logged once per episode and counted for /metrics (store-faults.ts). */
  faults: StoreFaultEpisodes;
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

/**
 * SQLite's synchronous pragma. In WAL mode 'normal' fsyncs only at checkpoints: a power loss
 * (not a process crash) may undo the last commits but never corrupts the file. 'full' fsyncs
 * the WAL on every commit.
 */
export type SqliteSynchronous = 'normal' | 'full';

export interface StoreOptions {
  /** PostgreSQL connections in the pool. */
  poolSize?: number;
  sqliteReaders?: number;
  /** Default 'normal'. */
  sqliteSynchronous?: SqliteSynchronous;
  /** How long the read cache may keep an answer; 0 turns it off. Default DEFAULT_READ_CACHE_MS. */
  readCacheMs?: number;
  /** The clock the app's requests take their time from, for the read cache; default the system's. */
  clock?: Clock;
}

export const DEFAULT_READ_CACHE_MS = 1000;

/** How long a new PostgreSQL connection may take before its query fails as `unavailable`. */
const PG_CONNECT_TIMEOUT_MS = 5000;

/** Reader threads of the SQLite read pool: the machine this runs on has few cores. */
export const DEFAULT_SQLITE_READERS = 2;

export function openStore(url: string, options: StoreOptions = {}): Store {
  const { dialect, target } = parseDatabaseUrl(url);
  if (dialect === 'sqlite') {
    if (target !== ':memory:') mkdirSync(dirname(target), { recursive: true });
    const file = new SQLite(target);
    const synchronous = options.sqliteSynchronous === 'full' ? 'FULL' : 'NORMAL';
    // exec, not pragma(): pragma() prepares a statement that is then left to the collector (below).
    // secure_delete: deleted or replaced rows (an erasure, retention, an updated session) are
    // overwritten with zeros in their page, and freed pages too, so the file keeps no copy of
    // them; a setting of the connection, and this is the one that writes (see docs/privacy.md).
    file.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = ${synchronous}; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;`);
    const cached = withStatementCache(file);
    const changes = new TableChanges();
    const faults = new StoreFaultEpisodes(storeLocation(url));
    const db = new Kysely<Database>({ dialect: trackedDialect(faultWatchedDialect(new ImmediateSqliteDialect(cached.database), faults), changes) });
    const readers = options.sqliteReaders ?? DEFAULT_SQLITE_READERS;
    const readPool = target !== ':memory:' && readers > 0 ? new ReadPool(target, readers) : null;
    sqliteHandles.set(db, file);
    registerTableChanges(db, changes);
    // Its thread starts on the first cycle, so a process that runs no scheduler spawns nothing.
    const pipelineReadPool = readPool ? new ReadPool(target, 1) : null;
    const readDb = readPool ? new Kysely<Database>({ dialect: trackedDialect(new ReadPoolDialect(readPool), changes) }) : db;
    const pipelineReadDb = pipelineReadPool ? new Kysely<Database>({ dialect: new ReadPoolDialect(pipelineReadPool) }) : null;
    // Changes when another connection (another process) commits; a kept statement, read synchronously.
    const dataVersion = cached.database.prepare('PRAGMA data_version').pluck();
    const pipelineDb = pipelineReadDb ? new Kysely<Database>({ dialect: new SplitDialect({ main: db, reads: pipelineReadDb }) }) : db;
    return {
      db,
      readDb,
      pipelineDb,
      readPool,
      pipelineReadPool,
      backgroundReadDb: pipelineReadDb ?? readDb,
      changes,
      readCache: new ReadCache({ changes, maxAgeMs: options.readCacheMs ?? DEFAULT_READ_CACHE_MS, dataVersion: () => dataVersion.get() as number, clock: options.clock }),
      dialect,
      faults,
      close: async () => {
        if (readDb !== db) await readDb.destroy();
        if (pipelineReadDb) await pipelineReadDb.destroy();
        await db.destroy();
        cached.retire();
      },
      ping: async () => { await sql`select 1`.execute(db); },
    };
  }
  const faults = new StoreFaultEpisodes(storeLocation(url));
  // A connect that hangs (an unreachable host) fails after this instead of holding its request.
  const pool = new pg.Pool({ connectionString: target, max: options.poolSize ?? 10, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
  // A connection the server ends (a restart: 57P01) emits 'error'. pg-pool listens only while the
  // client is idle in the pool; one checked out by a query would have no listener, and Node
  // turns an unheard 'error' into a crash. So every client is heard for its whole life; the
  // query it was running fails on its own (503 unavailable), and pg-pool drops the client when
  // it is released, since it is no longer queryable. The pool connects anew on the next query.
  const heard = (err: Error) => { faults.failed(err); };
  pool.on('error', heard);
  pool.on('connect', (client) => { client.on('error', heard); });
  const changes = new TableChanges();
  const db = new Kysely<Database>({ dialect: trackedDialect(faultWatchedDialect(new PostgresDialect({ pool }), faults), changes) });
  registerTableChanges(db, changes);
  return {
    db,
    readDb: db,
    pipelineDb: db,
    readPool: null,
    pipelineReadPool: null,
    backgroundReadDb: db,
    changes,
    readCache: new ReadCache({ changes, maxAgeMs: options.readCacheMs ?? DEFAULT_READ_CACHE_MS, dataVersion: () => null, clock: options.clock }),
    dialect,
    faults,
    close: () => db.destroy(),
    ping: async () => { await sql`select 1`.execute(db); },
  };
}

const sqliteHandles = new WeakMap<Kysely<Database>, SQLite.Database>();

/**
 * The better-sqlite3 connection under a SQLite store's main Kysely instance, for the ingest hot
 * path's prepared statements (a Kysely multi-row insert is compiled and prepared again for every
 * statement). Statements run on it join whatever transaction that connection has open.
 */
export function sqliteHandleOf(db: Kysely<Database>): SQLite.Database | undefined {
  return sqliteHandles.get(db);
}

/** Distinct SQL texts kept prepared; the queries of the code base have far fewer shapes. */
const STATEMENT_CACHE_SIZE = 4000;

/**
 * better-sqlite3 12 (the last major that runs on Node 20) wraps connections and statements in
 * `node::ObjectWrap`, whose destructor aborts the process on Node 24.19 and later (`Assertion
 * failed: (env) != nullptr`) when the garbage collector frees one outside a JavaScript
 * context. So none is left for the collector: statements are cached for reuse (which also saves
 * the parse and plan of every query Kysely sends), and a closed store's connection and
 * statements are kept here until the process exits (a process opens a handful of stores).
 */
const closedHandles: unknown[] = [];

/**
 * Kysely prepares a statement for every query; this hands back a kept one for the same SQL.
 * A statement still iterating (a streamed read) is busy, so a concurrent use of the same SQL
 * gets another, kept beside it.
 */
function withStatementCache(file: SQLite.Database): { database: SQLite.Database; retire(): void } {
  const statements = new Map<string, SQLite.Statement[]>();
  let kept = 0;
  const database = new Proxy(file, {
    get(target, property) {
      if (property === 'prepare') {
        return (text: string) => {
          const same = statements.get(text);
          const idle = same?.find((statement) => !statement.busy);
          if (idle) return idle;
          const statement = target.prepare(text);
          if (kept < STATEMENT_CACHE_SIZE) {
            kept++;
            if (same) same.push(statement); else statements.set(text, [statement]);
          }
          return statement;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { database, retire: () => { closedHandles.push(file, statements); } };
}

/**
 * SQLite transactions that take the write lock when they begin. A deferred transaction that
 * reads and then writes fails at once ("database is locked") when another process (the server,
 * a worker, `mallard pipeline`) committed in between; an immediate one waits for the lock
 * (busy_timeout) instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SQLite.Database) { super({ database }); }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => { await connection.executeQuery(CompiledQuery.raw('begin immediate')); };
    // SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR); a ROLLBACK
    // then fails with "no transaction is active" and would replace the error that said why.
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => { if (this.database.inTransaction) await rollback(connection); };
    return driver;
  }
}
