// A Kysely dialect that splits one logical connection between the SQLite read pool and the main
// connection, for background work that reads much and writes some (the pipeline cycle): a plain
// select outside a transaction goes to a pool reader, off the main thread; everything else
// (inserts, updates, deletes, raw SQL, every statement between begin and commit or rollback)
// goes to the main connection.
//
// Why a dialect and not readDb handed to each loader: the routing is decided in one place, by
// what a statement is, so no loader can send a read that must see its own transaction's writes
// to the pool, and code that takes one `db` (scoreSpan, the alert and verify steps) gets it
// without knowing about the pool.
//
// Read-your-writes holds: a write outside a transaction has committed (better-sqlite3 is
// synchronous) before the next statement is sent, and a pool reader starts a fresh read
// snapshot per statement (WAL), so the select sees it. A select inside a transaction stays on
// the transaction's connection and sees its uncommitted writes.
//
// Both sides are the store's own Kysely instances, reached through their public API: the main
// side keeps its single-connection mutex, BEGIN IMMEDIATE and statement cache, so a transaction
// here excludes every other statement on the main connection exactly as one on `db` does.
import {
  SelectQueryNode, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type CompiledQuery, type ControlledTransaction, type DatabaseConnection, type Dialect, type Driver,
  type Kysely, type QueryResult, type TransactionSettings,
} from 'kysely';
import type { Database } from './tables.ts';

/** One statement's (or one transaction's) view of the two connections. */
class SplitConnection implements DatabaseConnection {
  /** The open transaction on the main connection, between begin and commit or rollback. */
  trx: ControlledTransaction<Database> | null = null;

  constructor(private readonly main: Kysely<Database>, private readonly reads: Kysely<Database>) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.trx) return this.trx.executeQuery<R>(query);
    if (SelectQueryNode.is(query.query)) return this.reads.executeQuery<R>(query);
    return this.main.executeQuery<R>(query);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The split connection does not stream; stream through the main connection (store.db)');
  }
}

class SplitDriver implements Driver {
  constructor(private readonly main: Kysely<Database>, private readonly reads: Kysely<Database>) {}

  async init() {}

  // Nothing is held until a statement runs: each side takes its own connection per statement,
  // and a transaction takes the main one from begin to commit.
  async acquireConnection(): Promise<DatabaseConnection> { return new SplitConnection(this.main, this.reads); }
  async releaseConnection() {}

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    let builder = this.main.startTransaction();
    if (settings.isolationLevel) builder = builder.setIsolationLevel(settings.isolationLevel);
    if (settings.accessMode) builder = builder.setAccessMode(settings.accessMode);
    (connection as SplitConnection).trx = await builder.execute();
  }

  async commitTransaction(connection: DatabaseConnection) {
    const split = connection as SplitConnection;
    await split.trx!.commit().execute();
    split.trx = null;
  }

  // Also after a failed commit (Kysely rolls back then): the main connection is released either way.
  async rollbackTransaction(connection: DatabaseConnection) {
    const split = connection as SplitConnection;
    const trx = split.trx;
    split.trx = null;
    if (trx) await trx.rollback().execute();
  }

  /** It owns neither side: the store closes them. */
  async destroy() {}
}

export class SplitDialect implements Dialect {
  constructor(private readonly sides: { main: Kysely<Database>; reads: Kysely<Database> }) {}
  createDriver(): Driver { return new SplitDriver(this.sides.main, this.sides.reads); }
  createQueryCompiler() { return new SqliteQueryCompiler(); }
  createAdapter() { return new SqliteAdapter(); }
  createIntrospector(db: Kysely<any>) { return new SqliteIntrospector(db); }
}
