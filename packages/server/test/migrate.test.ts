// Migrations on a PostgreSQL database shared with other schemas: Kysely's migrator lists the
// tables of every schema, and a schema dropped by someone else during that listing fails it
// with 3F000. migrateToLatest looks again in that case, and only in that case.
import pg from 'pg';
import { Kysely, PostgresDialect, type DatabaseIntrospector, type Dialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createTestStore, type TestStore } from './helpers/harness.ts';
import { postgresAvailable } from './helpers/services.ts';

/** PostgreSQL whose first `times` table listings fail as if `schema` had just been dropped. */
function vanishingSchema(url: string, schema: string, times: number) {
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
            throw Object.assign(new Error(`schema "${schema}" does not exist`), { code: '3F000' });
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
