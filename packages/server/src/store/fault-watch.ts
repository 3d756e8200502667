// A driver layer that tells the store's fault episodes (store-faults.ts) what each statement met,
// and keeps a transaction's own error when its rollback fails too: a SQLite that rolled back by
// itself on SQLITE_FULL, or a PostgreSQL connection that died, makes Kysely's ROLLBACK fail, and
// that second error would replace the one that says what happened. A connection whose rollback
// failed is one the database already ended the transaction on (SQLite) or one pg-pool drops on
// release because it is no longer queryable (PostgreSQL).
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { StoreFaultEpisodes } from './store-faults.ts';
import { classify } from './table-changes.ts';
import { withDriver, WrappingDriver, type WrappedConnection } from './wrapping-driver.ts';

class WatchedConnection implements WrappedConnection {
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

class WatchedDriver extends WrappingDriver {
  constructor(inner: Driver, private readonly episodes: StoreFaultEpisodes) { super(inner); }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new WatchedConnection(await this.inner.acquireConnection(), this.episodes);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    try {
      await super.beginTransaction(connection, settings);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
    (connection as WatchedConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection) {
    (connection as WatchedConnection).inTransaction = false;
    try {
      await super.commitTransaction(connection);
    } catch (err) {
      this.episodes.failed(err);
      throw err;
    }
    this.episodes.succeeded(true);
  }

  override async rollbackTransaction(connection: DatabaseConnection) {
    (connection as WatchedConnection).inTransaction = false;
    try {
      await super.rollbackTransaction(connection);
    } catch (err) {
      // Kysely rethrows the transaction's own error after this returns; that is the one to keep.
      this.episodes.failed(err);
    }
  }
}

/** The same dialect, with every statement's fault noted in `episodes` and a failed rollback never hiding the error before it. */
export function faultWatchedDialect(inner: Dialect, episodes: StoreFaultEpisodes): Dialect {
  return withDriver(inner, (driver) => new WatchedDriver(driver, episodes));
}
