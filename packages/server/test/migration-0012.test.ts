// Migration 0012 (the calibrated score scale) on a store holding scores of the first rule: every
// stored score is recomputed from what its row holds, and what cannot be is marked, on both dialects.
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, migrationsThrough } from '../src/store/migrate.ts';
import { eachDialect } from './helpers/harness.ts';
import { emptyStore } from './helpers/empty-store.ts';

const HOUR = 3_600_000;
const NOW = Date.now();
const C1 = NOW - 10 * 24 * HOUR;
const C2 = C1 + 15 * 60_000;

const history = (page: string, cycleAt: number, raw: number, active: number, affected: number) => ({
  id: `${page}-${cycleAt}`, site_id: 's1', page, cycle_at: cycleAt, score: Math.min(100, raw), raw_score: raw, deviation: null, trend: 'stable',
  active_users: active, affected_users: affected, breakdown: '[]',
});
const deploy = (id: string, deployedAt: number, pagesBefore: unknown[], pagesAfter: unknown[] | null) => ({
  id, site_id: 's1', version: id, environment: 'production', deployed_at: deployedAt, commit_sha: null, author: null, pr_number: null,
  provider: null, url: null, description: null, confusion_before: 4.5, confusion_after: pagesAfter ? 6 : null, delta: pagesAfter ? 1.5 : null,
  pages_before: JSON.stringify(pagesBefore), pages_after: pagesAfter ? JSON.stringify(pagesAfter) : null,
  after_computed_at: pagesAfter ? deployedAt + HOUR : null, created_at: deployedAt,
});

eachDialect('migration 0012-calibrated-scores', ({ name }) => {
  it('recomputes page, history, site and deploy scores of the first rule, and marks what it cannot', async () => {
    const { store, schema, drop } = await emptyStore(name);
    try {
      const old = new Migrator({
        db: store.db, provider: { getMigrations: async () => migrationsThrough('0011-pageview-index') },
        migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock', migrationTableSchema: schema,
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const db = store.db as any;
      // /checkout: 40 of 100 affected. First rule: x 2 (20+ users) on 4 per user = 8. New: 40 % -> x 2, raw 8, score 55.1.
      // /home: 12 of 200 affected. First rule: x 1.5 (10+ users) on 1 per user = 1.5. New: 6 % -> x 1, raw 1, score 9.5.
      await db.insertInto('score_history').values([history('/checkout', C1, 8, 100, 40), history('/home', C1, 1.5, 200, 12)]).execute();
      await db.insertInto('page_scores').values({
        id: 'p1', site_id: 's1', page: '/checkout', score: 8, raw_score: 8, trend: 'stable', deviation: null, duck_state: 'calm',
        dominant_signal: 'rage_click', breakdown: '[]', active_users: 100, affected_users: 40, frustrated_users: 40, signal_count: 16,
        window_start: C1 - 15 * 60_000, window_end: C1, stale: 0, computed_at: C1, first_seen_at: C1,
      }).execute();
      // The site: 50 of 250 affected, 2 per user. First rule x 2.5 = 5; new 20 % -> x 1.5 = 3. C2: every page stale.
      const site = (id: string, cycleAt: number) => ({
        id, site_id: 's1', cycle_at: cycleAt, overall_score: 2.5, raw_score: 5, deviation: null, trend: 'stable', active_users: 250, affected_users: 50, window_start: cycleAt - HOUR,
      });
      await db.insertInto('site_score_history').values([site('h1', C1), site('h2', C2)]).execute();
      const before = [{ page: '/checkout', score: 8, active_users: 100 }, { page: '/home', score: 1.5, active_users: 200 }];
      await db.insertInto('deploys').values([
        deploy('old', C1 + HOUR, before, before),
        deploy('tracked', NOW - HOUR, before, before),
        deploy('unknown-page', NOW - 2 * HOUR, [{ page: '/gone', score: 3, active_users: 5 }], null),
      ]).execute();

      expect(await migrateToLatest(store.db)).toContain('0012-calibrated-scores');

      const rows = await db.selectFrom('score_history').select(['page', 'score', 'raw_score']).orderBy('page').execute();
      expect(rows.map((r: any) => [r.page, Number(r.score), Number(r.raw_score)])).toEqual([['/checkout', 55.1, 8], ['/home', 9.5, 1]]);
      const page = await db.selectFrom('page_scores').selectAll().executeTakeFirstOrThrow();
      expect([Number(page.score), Number(page.raw_score), page.duck_state]).toEqual([55.1, 8, 'alert']);
      const sites = await db.selectFrom('site_score_history').select(['cycle_at', 'overall_score', 'raw_score']).orderBy('cycle_at').execute();
      // (55.1 x 100 + 9.5 x 200) / 300 = 24.7; the stale cycle carries it.
      expect(sites.map((r: any) => [Number(r.overall_score), Number(r.raw_score)])).toEqual([[24.7, 3], [24.7, 3]]);

      const deploys = new Map((await db.selectFrom('deploys').selectAll().execute()).map((d: any) => [d.id, d]));
      const recomputed = [{ page: '/checkout', score: 55.1, active_users: 100 }, { page: '/home', score: 9.5, active_users: 200 }];
      const oldDeploy: any = deploys.get('old');
      expect(JSON.parse(oldDeploy.pages_before)).toEqual(recomputed);
      expect(Number(oldDeploy.confusion_before)).toBe(24.7);
      // Its after-scores came from signals this migration does not read: kept, marked legacy.
      expect([oldDeploy.score_scale, Number(oldDeploy.confusion_after)]).toEqual(['legacy', 6]);
      const tracked: any = deploys.get('tracked');
      expect(JSON.parse(tracked.pages_before)).toEqual(recomputed);
      // Still tracked: emptied for the next cycle to fill on the new scale.
      expect([tracked.score_scale, tracked.confusion_after, tracked.pages_after, tracked.delta, tracked.after_computed_at]).toEqual(['calibrated', null, null, null, null]);
      expect((deploys.get('unknown-page') as any).score_scale).toBe('legacy');
      expect(await migrateToLatest(store.db)).toEqual([]);
    } finally {
      await drop();
    }
  });
});

describe('migrationsThrough', () => {
  it('lists the migrations of an older build, oldest first', () => {
    expect(Object.keys(migrationsThrough('0002-pipeline'))).toEqual(['0001-initial', '0002-pipeline']);
  });
});
