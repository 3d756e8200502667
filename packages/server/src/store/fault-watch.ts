// A driver layer that tells the store's fault episodes (store-faults.ts) what each statement met,
// and keeps a transaction's own error when its rollback fails too: a SQLite that rolled back by
// itself on SQLITE_FULL, or a PostgreSQL connection that died, makes Kysely's ROLLBACK fail, and
// that second error would replace the one that says what happened. A connection whose rollback
// failed is one the database already ended the transaction on (SQLite) or one pg-pool drops on
// release because it is no longer queryable (PostgreSQL).
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { StoreFaultEpisodes } from './store-faults.ts';
import { classify } from './table-changes.ts';

class WatchedConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(readonly inner: DatabaseConnection, private readonly episodes: StoreFaultEpisodes) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const result = await this.inner.executeQuery<R>(query);
      this.episodes.succeeded(!this.inTransaction && classify(query.sql).writes);
      return result;
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class WatchedDriver implements Driver {
  constructor(private readonly inner: Driver, private readonly episodes: StoreFaultEpisodes) {}

  init() { return this.inner.init(); }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new WatchedConnection(await this.inner.acquireConnection(), this.episodes);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const watched = connection as WatchedConnection;
    try {
      await this.inner.beginTransaction(watched.inner, settings);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
    watched.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection) {
    const watched = connection as WatchedConnection;
    watched.inTransaction = false;
    try {
      await this.inner.commitTransaction(watched.inner);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
    this.episodes.succeeded(true);
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const watched = connection as WatchedConnection;
    watched.inTransaction = false;
    try {
      await this.inner.rollbackTransaction(watched.inner);
    } catch (err) {
      // Kysely rethrows the transaction's own error after this returns; that is the one to keep.
      this.episodes.failed(err);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]) {
    await this.inner.savepoint!((connection as WatchedConnection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]) {
    await this.inner.rollbackToSavepoint!((connection as WatchedConnection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]) {
    await this.inner.releaseSavepoint!((connection as WatchedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection) { return this.inner.releaseConnection((connection as WatchedConnection).inner); }

  destroy() { return this.inner.destroy(); }
}

/** The same dialect, with every statement's fault noted in `episodes` and a failed rollback never hiding the error before it. */
export function faultWatchedDialect(inner: Dialect, episodes: StoreFaultEpisodes): Dialect {
  return {
    createDriver: () => new WatchedDriver(inner.createDriver(), episodes),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}
