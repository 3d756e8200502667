// Two pipeline runners in two separate processes (as two workers are; on SQLite only separate
// processes hold separate write locks), the same site and the same cycle time at once: the
// claim in the store lets one of them run, so a cycle is never written twice.
// (DESIGN.md: work is claimed in the database; docs/scoring.md: claims.)
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { ManualClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { CLAIM_LEASE_MS, claimSite, releaseSite, type CycleResult } from '../src/pipeline/cycle.ts';
import type { Store } from '../src/store/db.ts';
import { createTestStore, TEST_SECRET, type TestStore, eachDialect } from './helpers/harness.ts';
import { atOnce, startPipelineProcess, type PipelineProcess } from './helpers/pipeline-process.ts';

const MIN = 60_000;
const INTERVAL = 15 * MIN;
const C = Date.UTC(2026, 10, 2, 12, 0); // the first cycle time
const ROUNDS = 8;

/** 15 visitors on /checkout in [C - 15 min, C), the first 5 with one rage click (cf 1); 12 of them on /pricing. */
async function seed(store: Store, siteId: string) {
  for (let i = 0; i < 15; i++) {
    const sid = randomBytes(16).toString('hex');
    const t = C - 14 * MIN + i * 30_000;
    const event = (page: string, type: string, offset: number, signal?: string) => ({
      id: uuidv7(), site_id: siteId, sid, visitor_id: sid, type, page, occurred_at: t + offset, client_ts: t + offset, received_at: t + offset,
      dedupe_key: randomBytes(8).toString('hex'), name: null, signal_type: signal ?? null, element: signal ? 'button.pay' : null,
      label: null, props: null, referrer_page: null, environment: 'production',
    });
    const rows = [event('/checkout', 'pageview', 0)];
    if (i < 12) rows.push(event('/pricing', 'pageview', 1000));
    if (i < 5) rows.push(event('/checkout', 'signal', 2000, 'rage_click'));
    await store.db.insertInto('events').values(rows).execute();
    const signal = rows.find((r) => r.type === 'signal');
    if (signal) {
      await store.db.insertInto('signals').values({
        id: uuidv7(), site_id: siteId, event_id: signal.id, sid, visitor_id: sid, signal_type: 'rage_click', page: '/checkout',
        element: 'button.pay', label: null, confidence: 1, occurred_at: signal.occurred_at, rx: null, ry: null, vx: null, vy: null, environment: 'production',
      }).execute();
    }
  }
}

eachDialect('concurrent pipeline cycles', (dialect) => {
  let primary: TestStore;
  let workers: PipelineProcess[] = [];
  let siteId: string;
  const clock = new ManualClock(C + MIN);

  beforeAll(async () => {
    primary = await createTestStore(dialect.name);
    workers = await Promise.all([startPipelineProcess(primary.url), startPipelineProcess(primary.url)]);
    const org = await bootstrapOrg(primary.store, new Secrets(TEST_SECRET), {
      org: 'Concurrency', siteName: 'Concurrency site', siteUrl: 'https://concurrency.example',
      email: `owner-${randomBytes(3).toString('hex')}@example.com`, password: 'password-concurrency',
    }, clock.now());
    siteId = org.site_id;
    await seed(primary.store, siteId);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await primary?.drop();
  });

  it('two claims for one site at once in two processes: exactly one wins (eight rounds); a lapsed claim can be taken over', async () => {
    const db = primary.store.db;
    let winner = '';
    for (let r = 0; r < ROUNDS; r++) {
      const holders = [`runner-a-${r}`, `runner-b-${r}`];
      const results = await atOnce<boolean>(workers, (i) => ({ op: 'claimSite', siteId, holder: holders[i], cycleAt: C, now: clock.now() }));
      expect(results.filter(Boolean), `round ${r}`).toHaveLength(1);
      winner = holders[results.indexOf(true)];
      expect(await db.selectFrom('pipeline_claims').select('holder').execute()).toEqual([{ holder: winner }]);
      if (r < ROUNDS - 1) await releaseSite(db, siteId, winner);
    }
    // While the claim holds, a third runner is refused; once its lease lapses, it is not.
    expect(await claimSite(db, siteId, 'runner-c', C, clock.now() + CLAIM_LEASE_MS - 1)).toBe(false);
    expect(await claimSite(db, siteId, 'runner-c', C, clock.now() + CLAIM_LEASE_MS)).toBe(true);
    // Its holder takes it back while it holds (a run whose release met an outage, retried).
    expect(await claimSite(db, siteId, 'runner-c', C, clock.now() + CLAIM_LEASE_MS + 1)).toBe(true);
    // Only the holder releases a claim.
    await releaseSite(db, siteId, winner);
    expect(await claimSite(db, siteId, 'runner-d', C, clock.now())).toBe(false);
    await releaseSite(db, siteId, 'runner-c');
    expect(await db.selectFrom('pipeline_claims').selectAll().execute()).toEqual([]);
  });

  it('two runCycle calls in two processes, same site and window: one set of rows per cycle', async () => {
    const statuses: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = C + r * INTERVAL;
      const results = await atOnce<CycleResult>(workers, (i) => ({ op: 'runCycle', siteId, cycleAt: t, intervalMs: INTERVAL, now: clock.now(), holder: `${'ab'[i]}-${r}` }));
      for (const result of results) expect(['done', 'busy']).toContain(result.status);
      expect(results.some((result) => result.status === 'done')).toBe(true);
      statuses.push(...results.map((result) => result.status));

      const pages = await primary.store.db.selectFrom('score_history').select(['page', 'score', 'active_users'])
        .where('site_id', '=', siteId).where('cycle_at', '=', t).orderBy('page').execute();
      // /checkout: 15 active, 5 x 25 = 125, 5 affected (33.3 %: 500 >= 375, 500 < 750: x2.0):
      // 125 / 15 x 2 = 16.6667 -> 100 x (1 - e^-1.66667) = 81.112 -> 81.1. /pricing: 12 active, 0.
      expect(pages).toEqual([
        { page: '/checkout', score: 81.1, active_users: 15 },
        { page: '/pricing', score: 0, active_users: 12 },
      ]);
      const site = await primary.store.db.selectFrom('site_score_history').select(['overall_score', 'active_users'])
        .where('site_id', '=', siteId).where('cycle_at', '=', t).execute();
      // Overall (81.1 x 15 + 0 x 12) / 27 = 1216.5 / 27 = 45.056 -> 45.1.
      expect(site).toEqual([{ overall_score: 45.1, active_users: 15 }]);
    }
    console.info(`${dialect.name}: ${ROUNDS} concurrent rounds, statuses ${statuses.filter((s) => s === 'busy').length} busy / ${statuses.filter((s) => s === 'done').length} done`);

    // Every cycle written exactly once, nothing else, and every claim released.
    const history = await primary.store.db.selectFrom('score_history').select('cycle_at').where('site_id', '=', siteId).execute();
    expect(history).toHaveLength(2 * ROUNDS);
    expect(new Set(history.map((h) => Number(h.cycle_at))).size).toBe(ROUNDS);
    expect(await primary.store.db.selectFrom('site_score_history').select('id').where('site_id', '=', siteId).execute()).toHaveLength(ROUNDS);
    expect(await primary.store.db.selectFrom('page_scores').select('page').where('site_id', '=', siteId).execute()).toHaveLength(2);
    expect(await primary.store.db.selectFrom('pipeline_claims').selectAll().execute()).toEqual([]);
  });
});
