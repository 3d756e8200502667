// Revenue at risk (DOMAIN.md section 7) and the fix list built on it, through the real
// ingest route and one pipeline cycle. Both dialects.
//
// Traffic on /checkout, one session and visitor per visit, all within the last hour:
//   30 affected sessions: rage clicks on button.pay; 6 convert (3 x 4000, 3 x 6000 cents)
//   40 calm sessions: no friction; 22 convert (11 x 3000, 11 x 7000 cents)
//    5 sessions with other friction (dead clicks on a.help): all convert (5 x 5000 cents);
//      they are neither affected nor calm for the rage-click issue, and make an issue of
//      their own with too few sessions for an estimate
// Average value: 33 conversions, 165,000 cents in all: 5,000 cents.
// Rage-click issue: calm rate 22 / 40 = 0.55, affected 6 / 30 = 0.2, gap 0.35;
// 0.35 x 30 sessions x 5,000 cents = 52,500 cents a month (525.00). Dead-click issue: 5
// affected sessions (< 30): null, low confidence. Total: 52,500.
import { expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { HOUR, MIN, cycle, freshStart, ok, sendVisits, type Org, type Visit } from './helpers/traffic.ts';

const RAGE = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };
const DEAD = { type: 'dead_click', element: 'a.help', label: 'Help' };

function traffic(at: number, conversion: ((amount: number) => Visit['tracks']) | null): Visit[] {
  const out: Visit[] = [];
  const conv = (amount: number) => (conversion ? conversion(amount) : undefined);
  let n = 0;
  const add = (signal: typeof RAGE | null, tracks: Visit['tracks']) => {
    n++;
    out.push({ n, page: '/checkout', at: at + n * 2000, signals: signal ? [signal] : [], tracks });
  };
  for (let i = 0; i < 30; i++) add(RAGE, i < 6 ? conv(i < 3 ? 4000 : 6000) : undefined);
  for (let i = 0; i < 40; i++) add(null, i < 22 ? conv(i < 11 ? 3000 : 7000) : undefined);
  for (let i = 0; i < 5; i++) add(DEAD, conv(5000));
  return out;
}

eachDialect('revenue at risk', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });


  async function site(setup: (org: Org) => Promise<void>, conversion: ((amount: number) => Visit['tracks']) | null) {
    const { org, start: S, prefix } = await freshStart(h);
    await setup(org);
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, traffic(S + HOUR, conversion));
    h.clock.set(S + HOUR + 15 * MIN);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);
    return org;
  }

  it('a hand-computed example with conversion tracking', async () => {
    const org = await site(async (o) => {
      await ok(h, o.keys.secret, 'PATCH', '/v1/manage/sdk-config/production', { revenue_config: { currency: 'EUR', average_value_cents: 9900 } }, 200);
    }, (amount) => [{ name: 'checkout_completed', amount_cents: amount }]);
    const key = org.keys.secret;
    // Two issues on /checkout: the rage clicks and the dead clicks.
    const issues = await h.store.db.selectFrom('ux_issues').select(['id', 'type', 'severity_score', 'user_count']).where('site_id', '=', org.site_id).execute();
    const rageId = issues.find((i) => i.type === 'rage_click')!.id;
    const deadId = issues.find((i) => i.type === 'dead_click')!.id;

    const revenue = await ok(h, key, 'GET', '/v1/query/revenue');
    expect(revenue).toMatchObject({
      tracking: true, message: null, currency: 'EUR', window_days: 30,
      conversion_events: ['subscription_started', 'checkout_completed', 'purchase_completed'],
      average_value_cents: 5000, average_value_source: 'observed', // observed amounts win over the configured 9900
      total_monthly_revenue_at_risk_cents: 52_500, total_monthly_revenue_at_risk: 525,
    });
    expect(revenue.issues).toHaveLength(2);
    expect(revenue.issues[0]).toMatchObject({
      issue_id: rageId, type: 'rage_click', affected_sessions: 30, calm_sessions: 40,
      affected_conversion_rate: 0.2, calm_conversion_rate: 0.55, gap: 0.35,
      monthly_revenue_at_risk_cents: 52_500, monthly_revenue_at_risk: 525, confidence: 'normal',
    });
    expect(revenue.issues[1]).toMatchObject({
      issue_id: deadId, type: 'dead_click', affected_sessions: 5, calm_sessions: 40,
      gap: null, monthly_revenue_at_risk_cents: null, monthly_revenue_at_risk: null, confidence: 'low',
    });

    // Severity scores. Rage clicks: 36.25 (tier 1, weight 25) + 30 / 75 users x 25 = 10 + log10(31) /
    // log10(1001) x 15 = 7.4557 + 10 (/checkout) + 6 / 30 converted x 5 = 1 + 5 (recent) = 69.7, high.
    // Dead clicks: 33 (tier 1, weight 12) + 5 / 75 x 25 = 1.6667 + log10(6) / log10(1001) x 15 =
    // 3.8902 + 10 + 5 / 5 x 5 = 5 + 5 = 58.557 -> 58.6, high.
    expect(issues.find((i) => i.id === rageId)!.severity_score).toBe(69.7);
    expect(issues.find((i) => i.id === deadId)!.severity_score).toBe(58.6);
    // The fix list is in priority order (docs/issues.md "Priority"; the site tracks conversions,
    // so no rescaling). Rage clicks: users 35 x log10(31) / log10(1001) = 17.3967 + high 22.5 +
    // weight 15 x 25 / 40 = 9.375 + revenue 20 x log10(1 + 525) / log10(10001) = 13.6048 = 62.88 -> 62.9.
    // Dead clicks: 35 x log10(6) / log10(1001) = 9.0771 + 22.5 + 15 x 12 / 40 = 4.5 + no estimate 0 = 36.08 -> 36.1.
    const recs = await ok(h, key, 'GET', '/v1/query/recommendations');
    expect(recs.currency).toBe('EUR');
    expect(recs.recommendations.map((r: { issue_id: string }) => r.issue_id)).toEqual([rageId, deadId]);
    expect(recs.recommendations[0]).toMatchObject({
      priority: 62.9, priority_reason: 'high; 30 users in 7 days; €525/month at risk; rage click (weight 25)',
      monthly_revenue_at_risk_cents: 52_500, affected_users: 30, issue_url: `/v1/query/issues/${rageId}`,
    });
    expect(recs.recommendations[1]).toMatchObject({
      priority: 36.1, priority_reason: 'high; 5 users in 7 days; revenue at risk not estimated (too few sessions); dead click (weight 12)',
      monthly_revenue_at_risk_cents: null, affected_users: 5,
    });
    expect(recs.recommendations[0].recommendation).not.toBe(recs.recommendations[1].recommendation);

    // Only open issues count: once the rage clicks are ignored, they leave the total and the list.
    await ok(h, key, 'PATCH', `/v1/manage/issues/${rageId}`, { status: 'ignored' });
    const after = await ok(h, key, 'GET', '/v1/query/revenue');
    expect(after.total_monthly_revenue_at_risk_cents).toBe(0);
    expect(after.issues.map((i: { issue_id: string }) => i.issue_id)).toEqual([deadId]);
    expect((await ok(h, key, 'GET', '/v1/query/recommendations')).recommendations.map((r: { issue_id: string }) => r.issue_id)).toEqual([deadId]);
  });

  it('configured conversion events and a configured value when conversions carry no amount', async () => {
    // 0.35 x 30 x 8,000 cents = 84,000 cents.
    const org = await site(async (o) => {
      await ok(h, o.keys.secret, 'PATCH', '/v1/manage/sdk-config/production', { revenue_config: { average_value_cents: 8000, conversion_events: ['order_paid'] } }, 200);
    }, () => [{ name: 'order_paid' }]);
    const revenue = await ok(h, org.keys.secret, 'GET', '/v1/query/revenue');
    expect(revenue).toMatchObject({
      tracking: true, currency: 'USD', conversion_events: ['order_paid'], average_value_cents: 8000, average_value_source: 'config',
      total_monthly_revenue_at_risk_cents: 84_000, total_monthly_revenue_at_risk: 840,
    });
    expect(revenue.issues[0]).toMatchObject({ type: 'rage_click', gap: 0.35, monthly_revenue_at_risk_cents: 84_000 });
  });

  it('without conversion tracking: says so plainly and returns zeros, never an error', async () => {
    const org = await site(async () => {}, null);
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/revenue', headers: { authorization: `Bearer ${org.keys.secret}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.error).toBeNull();
    expect(body.data).toMatchObject({
      tracking: false, currency: 'USD', total_monthly_revenue_at_risk_cents: 0, total_monthly_revenue_at_risk: 0,
      issues: [], average_value_cents: null,
    });
    expect(body.data.message).toMatch(/track/i);
    // The issues exist; they simply cannot be priced.
    expect((await ok(h, org.keys.secret, 'GET', '/v1/query/issues')).total).toBe(2);
    const recs = await ok(h, org.keys.secret, 'GET', '/v1/query/recommendations');
    expect(recs.recommendations.every((r: { monthly_revenue_at_risk_cents: number | null }) => r.monthly_revenue_at_risk_cents === null)).toBe(true);
    // Without revenue data the priority has no revenue part and the others are scaled by 100 / 80:
    // rage clicks (17.3967 + 22.5 + 9.375) x 1.25 = 61.59 -> 61.6; the reason says nothing of money.
    expect(recs.recommendations[0]).toMatchObject({ type: 'rage_click', priority: 61.6, priority_reason: 'high; 30 users in 7 days; rage click (weight 25)' });
  });
});
