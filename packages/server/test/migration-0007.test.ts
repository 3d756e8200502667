// Migration 0007 (read indexes) on a store that already holds data from 0006: it applies on
// both dialects and leaves the partial index events_site_track on track events only.
import { Migrator, sql, type Migration } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as initial from '../src/store/migrations/0001-initial.ts';
import * as pipeline from '../src/store/migrations/0002-pipeline.ts';
import * as issues from '../src/store/migrations/0003-issues.ts';
import * as alerts from '../src/store/migrations/0004-alerts.ts';
import * as deliveries from '../src/store/migrations/0005-deliveries.ts';
import * as operator from '../src/store/migrations/0006-operator.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { eachDialect } from './helpers/harness.ts';
import { emptyStore } from './helpers/empty-store.ts';

const UP_TO_0006: Record<string, Migration> = {
  '0001-initial': initial, '0002-pipeline': pipeline, '0003-issues': issues, '0004-alerts': alerts, '0005-deliveries': deliveries, '0006-operator': operator,
};

eachDialect('migration 0007-read-indexes', ({ name }) => {
  it('applies to a store at 0006 with events in it, adding the partial index events_site_track', async () => {
    const { store, schema, drop } = await emptyStore(name);
    try {
      const old = new Migrator({
        db: store.db, provider: { getMigrations: async () => UP_TO_0006 },
        migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock', migrationTableSchema: schema,
      });
      const before = await old.migrateToLatest();
      expect(before.error).toBeUndefined();
      const event = (id: string, type: string, name: string | null) => ({
        id, site_id: 's1', sid: 'a'.repeat(32), visitor_id: null, type, page: '/checkout', occurred_at: 1_000 + id.length, client_ts: null,
        received_at: 2_000, dedupe_key: id, name, signal_type: null, element: null, label: null, props: null, referrer_page: null, environment: 'production',
      });
      await store.db.insertInto('events').values([event('e1', 'pageview', null), event('e22', 'track', 'checkout_completed')]).execute();

      // 0007 and every migration after it.
      expect((await migrateToLatest(store.db))[0]).toBe('0007-read-indexes');
      if (name === 'sqlite') {
        const index = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and name = 'events_site_track'`.execute(store.db);
        expect(index.rows[0]?.sql).toMatch(/\("site_id", "name", "occurred_at"\) where "type" = 'track'/);
      } else {
        const index = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${schema} and indexname = 'events_site_track'`.execute(store.db);
        expect(index.rows[0]?.indexdef).toMatch(/\(site_id, name, occurred_at\) WHERE \(type = 'track'::text\)/);
      }
      // The rows are still there, and a second run has nothing left to apply.
      expect((await store.db.selectFrom('events').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['e1', 'e22']);
      expect(await migrateToLatest(store.db)).toEqual([]);
    } finally {
      await drop();
    }
  });
});
