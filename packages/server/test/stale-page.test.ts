// A page with fewer than 3 active users even in 24 hours keeps its previous score, is marked
// stale and gets no history row; it still counts toward the overall score with its last active
// users (DOMAIN.md 3, docs/scoring.md). The previous score here is not 0, so keeping it and
// resetting it to 0 tell apart, and so does scoring the page's 2 new users anyway. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, DAY, ingest, INTERVAL, intervalTraffic } from './helpers/alert-traffic.ts';

const C0 = Date.UTC(2026, 10, 2, 10, 15); // /help scored
const C1 = C0 + DAY + INTERVAL; // its users of C0 are more than 24 hours back: stale
const C2 = C1 + INTERVAL; // 3 new users: scored again
const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('stale pages', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let siteId: string;
  let a: ReturnType<typeof api>;
  let scoredAtC0: Awaited<ReturnType<typeof helpRow>>;

  const helpRow = () => h.store.db.selectFrom('page_scores')
    .select(['score', 'raw_score', 'active_users', 'affected_users', 'stale', 'computed_at', 'window_start', 'window_end', 'breakdown'])
    .where('site_id', '=', siteId).where('page', '=', '/help').executeTakeFirstOrThrow();
  const helpHistory = async () => (await h.store.db.selectFrom('score_history').select(['cycle_at', 'score'])
    .where('site_id', '=', siteId).where('page', '=', '/help').orderBy('cycle_at').execute())
    .map((r) => ({ cycle_at: Number(r.cycle_at), score: r.score }));
  const overallAt = async (t: number) => (await h.store.db.selectFrom('site_score_history').select('overall_score')
    .where('site_id', '=', siteId).where('cycle_at', '=', t).executeTakeFirstOrThrow()).overall_score;

  beforeAll(async () => {
    const org = await h.org('Stale');
    siteId = org.site_id;
    a = api(h, org.keys.secret);
    // C0: /main 10 visitors, nothing wrong; /help 3 visitors, one rage click: 25 weighted, 1 of 3
    // affected (33.3 %, x2.0): 25 / 3 x 2 = 16.6667 -> 100 x (1 - e^-1.66667) = 81.112 -> 81.1.
    h.clock.set(C0);
    await ingest(h, org.keys.secret, intervalTraffic(C0 - INTERVAL, [
      { page: '/main' },
      { page: '/help', users: 3, signals: [{ type: 'rage_click', element: 'button.send' }] },
    ]));
    await cycle(h, siteId, C0);
    scoredAtC0 = await helpRow();
    // Before C1: /main 10 new visitors; /help only 2, one rage click each (if scored: 50 / 2 = 25,
    // 2 of 2 affected, x2.5: 62.5 -> 99.8).
    h.clock.set(C1);
    await ingest(h, org.keys.secret, intervalTraffic(C1 - INTERVAL, [
      { page: '/main' },
      { page: '/help', users: 2, signals: [{ type: 'rage_click', element: 'button.send', by: 0 }, { type: 'rage_click', element: 'button.send', by: 1 }] },
    ]));
    await cycle(h, siteId, C1);
  });

  it('scored with enough users: a score above 0 and a history row', async () => {
    expect(scoredAtC0).toMatchObject({ score: 81.1, raw_score: 16.6667, active_users: 3, affected_users: 1, stale: 0, computed_at: C0, window_end: C0 });
    expect(await helpHistory()).toEqual([{ cycle_at: C0, score: 81.1 }]);
    // (0 x 10 + 81.1 x 3) / 13 = 243.3 / 13 = 18.715 -> 18.7.
    expect(await overallAt(C0)).toBe(18.7);
  });

  it('with 2 users in 24 hours: the previous score kept, marked stale, no history row, still in the overall score', async () => {
    // The row of C0 as it was, only marked stale.
    expect(await helpRow()).toEqual({ ...scoredAtC0, stale: 1 });
    expect(await helpHistory()).toEqual([{ cycle_at: C0, score: 81.1 }]);
    // Weighted by its last 3 users: (0 x 10 + 81.1 x 3) / 13 = 18.7 (0 if it were reset or left out;
    // scored with its 2 users, (0 x 10 + 99.8 x 2) / 12 = 16.6).
    expect(await overallAt(C1)).toBe(18.7);

    const scores = await a.get('/v1/query/scores');
    expect(scores.as_of).toBe(iso(C1));
    expect(scores.site.overall_score).toBe(18.7);
    const help = scores.site.pages.find((p: { page: string }) => p.page === '/help');
    expect(help).toMatchObject({ score: 81.1, active_users: 3, stale: true, computed_at: iso(C0) });
    const trends = await a.get('/v1/query/trends?page=/help&days=2');
    expect(trends.history.map((r: { cycle_at: string; score: number }) => [r.cycle_at, r.score])).toEqual([[iso(C0), 81.1]]);
  });

  it('a stale page with 3 users again is scored afresh, not stale, with a history row', async () => {
    h.clock.set(C2);
    // 3 new visitors without signals; the 24-hour window also holds C1's 2: 50 weighted, 2 of 5
    // affected (40 %, x2.0): 50 / 5 x 2 = 20 -> 100 x (1 - e^-2) = 86.466 -> 86.5.
    await ingest(h, a.key, intervalTraffic(C2 - INTERVAL, [{ page: '/help', users: 3 }]));
    await cycle(h, siteId, C2);
    expect(await helpRow()).toMatchObject({ score: 86.5, raw_score: 20, active_users: 5, affected_users: 2, stale: 0, computed_at: C2 });
    expect(await helpHistory()).toEqual([{ cycle_at: C0, score: 81.1 }, { cycle_at: C2, score: 86.5 }]);
  });
});
