// The pass-through half of a Kysely driver that wraps another's connections: the layers that
// observe statements (table-changes.ts, fault-watch.ts) override what they watch and inherit
// the rest from here.
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';

/** A connection that wraps the inner driver's. */
export interface WrappedConnection extends DatabaseConnection { readonly inner: DatabaseConnection }

type Compile = Parameters<NonNullable<Driver['savepoint']>>[2];

export abstract class WrappingDriver implements Driver {
  constructor(protected readonly inner: Driver) {}

  abstract acquireConnection(): Promise<DatabaseConnection>;

  init() { return this.inner.init(); }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) { return this.inner.beginTransaction(innerOf(connection), settings); }

  commitTransaction(connection: DatabaseConnection) { return this.inner.commitTransaction(innerOf(connection)); }

  rollbackTransaction(connection: DatabaseConnection) { return this.inner.rollbackTransaction(innerOf(connection)); }

  async savepoint(connection: DatabaseConnection, name: string, compile: Compile) { await this.inner.savepoint!(innerOf(connection), name, compile); }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile) { await this.inner.rollbackToSavepoint!(innerOf(connection), name, compile); }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile) { await this.inner.releaseSavepoint!(innerOf(connection), name, compile); }

  releaseConnection(connection: DatabaseConnection) { return this.inner.releaseConnection(innerOf(connection)); }

  destroy() { return this.inner.destroy(); }
}

export const innerOf = (connection: DatabaseConnection) => (connection as WrappedConnection).inner;

/** The same dialect with its driver wrapped. */
export function withDriver(inner: Dialect, wrap: (driver: Driver) => Driver): Dialect {
  return {
    createDriver: () => wrap(inner.createDriver()),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}
