// Migrations on a PostgreSQL database shared with other schemas: Kysely's migrator lists the
// tables of every schema, and a schema dropped by someone else during that listing fails it:
// with 3F000 (the schema), or 42P01 or 42703 (one of its tables or columns, looked up by name).
// migrateToLatest looks again in those cases, and only in those.
import pg from 'pg';
import { Kysely, PostgresDialect, type DatabaseIntrospector, type Dialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createTestStore, type TestStore } from './helpers/harness.ts';
import { postgresAvailable } from './helpers/services.ts';

const schemaGone = (schema: string) => Object.assign(new Error(`schema "${schema}" does not exist`), { code: '3F000' });

/** PostgreSQL whose first `times` table listings fail as if `schema` had just been dropped. */
function vanishingSchema(url: string, schema: string, times: number, failure: () => Error = () => schemaGone(schema)) {
  const real = new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) });
  const state = { failures: 0 };
  const dialect: Dialect = {
    createAdapter: () => real.createAdapter(),
    createDriver: () => real.createDriver(),
    createQueryCompiler: () => real.createQueryCompiler(),
    createIntrospector: (db) => {
      const inner = real.createIntrospector(db);
      const introspector: DatabaseIntrospector = {
        getSchemas: () => inner.getSchemas(),
        getMetadata: (options) => inner.getMetadata(options),
        getTables: async (options) => {
          if (state.failures < times) {
            state.failures++;
            throw failure();
          }
          return inner.getTables(options);
        },
      };
      return introspector;
    },
  };
  return { db: new Kysely<unknown>({ dialect }), state };
}

const skip = !postgresAvailable;

describe.skipIf(skip)('migrations on a shared PostgreSQL database', () => {
  let ts: TestStore;
  let own: string;
  beforeAll(async () => {
    ts = await createTestStore('postgres');
    own = new URL(ts.url).searchParams.get('options')!.replace('-c search_path=', '');
  });
  afterAll(async () => { await ts?.drop(); });

  it('another schema vanishing during the table listing is looked at again', async () => {
    const { db, state } = vanishingSchema(ts.url, 't_someone_else', 2);
    try {
      expect(await migrateToLatest(db)).toEqual([]);
      expect(state.failures).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('a table of another schema dropped during the listing is looked at again', async () => {
    const columnGone = () => Object.assign(new Error('column "site_id" of relation "page_scores" does not exist'), { code: '42703' });
    const { db, state } = vanishingSchema(ts.url, 't_someone_else', 2, columnGone);
    try {
      expect(await migrateToLatest(db)).toEqual([]);
      expect(state.failures).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('any other failure of the listing is an error, not retried', async () => {
    const { db, state } = vanishingSchema(ts.url, 't_someone_else', 1, () => Object.assign(new Error('permission denied for schema t_someone_else'), { code: '42501' }));
    try {
      await expect(migrateToLatest(db)).rejects.toThrow('permission denied');
      expect(state.failures).toBe(1);
    } finally {
      await db.destroy();
    }
  });

  it('its own schema missing is an error, not retried', async () => {
    const { db, state } = vanishingSchema(ts.url, own, 1);
    try {
      await expect(migrateToLatest(db)).rejects.toThrow(`schema "${own}" does not exist`);
      expect(state.failures).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
