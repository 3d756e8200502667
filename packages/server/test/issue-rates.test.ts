// Issue rates (signals per active user on the issue's page over a span), as verification and a
// deploy's before-rates use them. Several issues over the same page and span count the page's
// users once; a deploy reads them in the store's background lane, so on SQLite the week of
// events they scan neither runs on the main thread nor holds the routes' readers.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { issueRate, issueRates, type IssueSpan } from '../src/pipeline/issue-rates.ts';
import type { ReadPool } from '../src/store/read-pool.ts';
import { eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { countingSelectsFrom, selectsOnMainConnection } from './helpers/query-spy.ts';
import { HOUR, MIN, cycle, freshStart, ok, sendVisits, visits, type SignalSpec } from './helpers/traffic.ts';

const PAY: SignalSpec = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };
const BACK: SignalSpec = { type: 'dead_click', element: 'a.back', label: 'Back' };
const CART: SignalSpec = { type: 'dead_click', element: 'button.update', label: 'Update' };

/** /checkout: 12 users, 5 rage clicks on Pay and 3 dead clicks on Back; /cart: 8 users, 4 dead clicks. */
async function traffic(h: Harness) {
  const { org, start: S, prefix } = await freshStart(h);
  h.clock.set(S + HOUR + 30 * MIN);
  await sendVisits(h, org, prefix, [
    ...visits(1, 5, '/checkout', S + HOUR, PAY, 5),
    ...visits(6, 3, '/checkout', S + HOUR + 10 * MIN, BACK, 3),
    ...visits(9, 4, '/checkout', S + HOUR + 12 * MIN, PAY, 0),
    ...visits(13, 8, '/cart', S + HOUR + 15 * MIN, CART, 4),
  ]);
  return { org, S };
}

eachDialect('issue rates', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  it('gives each issue its own rate and counts a page\'s users once per span', async () => {
    const { org, S } = await traffic(h);
    const key = (page: string, spec: SignalSpec) => ({ site_id: org.site_id, page, type: spec.type, element_selector: spec.element });
    const spans: IssueSpan[] = [
      { issue: key('/checkout', PAY), from: S, to: S + 2 * HOUR },
      { issue: key('/checkout', BACK), from: S, to: S + 2 * HOUR },
      { issue: key('/cart', CART), from: S, to: S + 2 * HOUR },
      // The same page over another span is another count.
      { issue: key('/checkout', PAY), from: S + HOUR + 5 * MIN, to: S + 2 * HOUR },
    ];
    const counting = countingSelectsFrom(h.store.db, 'events');
    const rates = await issueRates(counting.db, spans);
    expect(rates).toEqual([
      { count: 5, activeUsers: 12, rate: 5 / 12 },
      { count: 3, activeUsers: 12, rate: 3 / 12 },
      { count: 4, activeUsers: 8, rate: 0.5 },
      { count: 0, activeUsers: 7, rate: 0 },
    ]);
    expect(counting.counter.selects).toBe(3);
    for (const [i, span] of spans.entries()) expect(await issueRate(h.store.db, span.issue, span.from, span.to)).toEqual(rates[i]);
  });

});

// The read lanes exist on a SQLite file only (on PostgreSQL every read shares one pool).
describe('a deploy\'s before-rates on a SQLite file', () => {
  const h = useHarness('sqlite', { raisedLimits: true });
  afterEach(() => { vi.restoreAllMocks(); });

  it('reads a deploy\'s before-rates on the background reader, not the main connection nor the routes\' readers, and stores them', async () => {
    const { org, S } = await traffic(h);
    h.clock.set(S + 2 * HOUR);
    await cycle(h, org.site_id, S + 2 * HOUR);
    // Every select the main connection answers outside a transaction, while the deploy is recorded.
    const onMain = selectsOnMainConnection(h.store.db);
    const served = (pool: ReadPool | null) => pool!.stats().reduce((n, r) => n + r.served, 0);
    const [routes, background] = [served(h.store.readPool), served(h.store.pipelineReadPool)];
    const deploy = await ok(h, org.keys.secret, 'POST', '/v1/manage/deploys', { version: '3.1.0' });
    vi.restoreAllMocks();
    // Three issues on two pages: three signal counts and two user counts.
    expect(served(h.store.pipelineReadPool) - background).toBe(5);
    expect(served(h.store.readPool)).toBe(routes);
    // The spy saw the deploy's own selects on the main connection (the site, the scores)...
    expect(onMain.length).toBeGreaterThan(0);
    // ...but none of the rate reads.
    expect(onMain.filter((s) => /from "(events|signals)"/.test(s))).toEqual([]);
    const records = await h.store.db.selectFrom('issue_verifications').innerJoin('ux_issues', 'ux_issues.id', 'issue_verifications.issue_id')
      .select(['ux_issues.page', 'ux_issues.element_selector', 'before_count', 'before_rate'])
      .where('deploy_id', '=', deploy.id).orderBy('ux_issues.page').orderBy('ux_issues.element_selector').execute();
    expect(records).toEqual([
      { page: '/cart', element_selector: 'button.update', before_count: 4, before_rate: 0.5 },
      { page: '/checkout', element_selector: 'a.back', before_count: 3, before_rate: 3 / 12 },
      { page: '/checkout', element_selector: 'button.pay', before_count: 5, before_rate: 5 / 12 },
    ]);
  });
});
