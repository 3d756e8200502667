// The nine alert triggers of DOMAIN.md section 5 as pure functions: for each, a table of
// score histories (or site inputs) where it must fire and where it must not. Every expected
// value is worked out by hand next to the case; nothing here touches a store or a clock.
import { describe, expect, it } from 'vitest';
import {
  alertSeverity, evaluatePage, evaluateSite, normalCdf, SITE_TRIGGERS, timeAdjustedBaseline,
  type HistoryPoint, type PageContext, type RuleLike, type SiteContext,
} from '../src/pipeline/triggers.ts';
import type { TriggerType } from '../src/domain/alert-triggers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const AT = Date.UTC(2026, 10, 2, 12, 0, 0); // Monday 2026-11-02 12:00 UTC

const rule = (trigger_type: TriggerType, threshold: number, config: Record<string, unknown> = {}): RuleLike => ({ trigger_type, threshold, config });

function page(overrides: Partial<PageContext> = {}): PageContext {
  return {
    page: '/checkout', cycleAt: AT, score: 0, raw: 0, previousScore: null, firstSeenAt: AT - 30 * DAY,
    history: [], baselineMature: false, deployDelta: null, elements: [], ...overrides,
  };
}
const site = (overrides: Partial<SiteContext> = {}): SiteContext =>
  ({ revenueAtRisk: null, previousRevenueAtRisk: null, conversions: null, expectedConversions: null, ...overrides });

/** `n` history points of raw `raw`, one every `stepMs` ending `endAgo` before AT. */
const points = (n: number, raw: number, endAgo: number, stepMs = HOUR): HistoryPoint[] =>
  Array.from({ length: n }, (_, i) => ({ at: AT - endAgo - (n - 1 - i) * stepMs, raw, score: raw }));

type Case = [name: string, ctx: Partial<PageContext>, expected: number | null];

function table(trigger: TriggerType, threshold: number, cases: Case[], config: Record<string, unknown> = {}) {
  it.each(cases)(`${trigger} >= ${threshold}: %s`, (_name, ctx, expected) => {
    const firing = evaluatePage(rule(trigger, threshold, config), page(ctx));
    if (expected === null) expect(firing).toBeNull();
    else {
      expect(firing).not.toBeNull();
      expect(firing!.conditionValue).toBeCloseTo(expected, 2);
      expect(firing!.message.length).toBeGreaterThan(0);
    }
  });
}

describe('spike: the score rose by >= threshold since the previous cycle, or a deploy delta >= threshold', () => {
  table('spike', 10, [
    ['20 -> 30 rises exactly 10', { previousScore: 20, score: 30 }, 10],
    ['20 -> 29.9 rises 9.9', { previousScore: 20, score: 29.9 }, null],
    // 16.4 - 6.4 is 9.999999999999998 in floating point; scores have one decimal, so the rise is 10.0.
    ['6.4 -> 16.4 rises exactly 10.0', { previousScore: 6.4, score: 16.4 }, 10],
    ['0 -> 55 rises 55', { previousScore: 0, score: 55 }, 55],
    ['a first score (no previous cycle) is not a spike', { previousScore: null, score: 90 }, null],
    ['a fall is not a spike', { previousScore: 30, score: 10 }, null],
    ['50 -> 40 but a deploy delta of 12', { previousScore: 50, score: 40, deployDelta: 12 }, 12],
    ['no previous score but a deploy delta of 10', { previousScore: null, score: 10, deployDelta: 10 }, 10],
    ['a deploy delta of 9.9 and a rise of 2', { previousScore: 8, score: 10, deployDelta: 9.9 }, null],
    ['the larger of rise 15 and deploy delta 11', { previousScore: 5, score: 20, deployDelta: 11 }, 15],
  ]);
});

describe('anomaly: a mature baseline and a one-sided normal probability of z >= threshold / 100', () => {
  // Four points at 9.5 and four at 10.5, all at 12:00 on Mondays (same hour and weekday as AT):
  // mean 10; sample sd sqrt(8 x 0.25 / 7) = 0.53 < 1, so z = (raw - 10) / 1.
  const flat: HistoryPoint[] = Array.from({ length: 8 }, (_, i) => ({ at: AT - (i + 1) * 7 * DAY, raw: i % 2 ? 10.5 : 9.5, score: 10 }));
  table('anomaly', 95, [
    ['raw 11.645: z 1.645, P 95.0 %', { baselineMature: true, history: flat, raw: 11.645 }, 95],
    ['raw 11.6: z 1.6, P 94.5 %', { baselineMature: true, history: flat, raw: 11.6 }, null],
    ['raw 14: z 4, P 99.997 % (reported to two decimals: 100)', { baselineMature: true, history: flat, raw: 14 }, 100],
    ['raw 14 without a mature baseline', { baselineMature: false, history: flat, raw: 14 }, null],
    ['raw 6: far below, P 0', { baselineMature: true, history: flat, raw: 6 }, null],
  ]);
  table('anomaly', 99, [
    ['raw 12.33: z 2.33, P 99.01 %', { baselineMature: true, history: flat, raw: 12.33 }, 99.01],
    ['raw 12.3: z 2.3, P 98.93 %', { baselineMature: true, history: flat, raw: 12.3 }, null],
  ]);

  // Time-adjusted: 4 points at 12:00 on Tuesday-Friday (same hour) raw 20; 4 points at 00:00 on
  // Tuesday-Friday raw 10; 2 points on Mondays at 00:00 (same weekday) raw 10.
  // mean = (80 + 60) / 10 = 14; hour mean 20; weekday mean 10; adjusted = 14 + 6 - 4 = 16.
  // sd: deviations +6 (x4), -4 (x6): (144 + 96) / 9 = 26.667, sd 5.164.
  const mixed: HistoryPoint[] = [
    ...[1, 2, 3, 4].map((d) => ({ at: AT - 7 * DAY + d * DAY, raw: 20, score: 20 })), // Tue..Fri 12:00
    ...[1, 2, 3, 4].map((d) => ({ at: AT - 7 * DAY + d * DAY - 12 * HOUR, raw: 10, score: 10 })), // Tue..Fri 00:00
    { at: AT - 12 * HOUR, raw: 10, score: 10 }, { at: AT - 7 * DAY - 12 * HOUR, raw: 10, score: 10 }, // Mondays 00:00
  ];
  it('the time-adjusted baseline is mean + (hour mean - mean) + (weekday mean - mean)', () => {
    const base = timeAdjustedBaseline(mixed, AT);
    expect(base.mean).toBeCloseTo(16, 10);
    expect(base.sd).toBeCloseTo(Math.sqrt(240 / 9), 10);
  });
  table('anomaly', 50, [
    // z = 0.01 / 5.164 = 0.0019: P 50.08 %.
    ['raw 16.01, just over the adjusted mean 16', { baselineMature: true, history: mixed, raw: 16.01 }, 50.08],
    ['raw 15.99 is far above the plain mean 14 but under the adjusted 16', { baselineMature: true, history: mixed, raw: 15.99 }, null],
  ]);
});

describe('new_page: first seen less than 7 days ago, no mature baseline, score >= threshold', () => {
  table('new_page', 30, [
    ['6 days old, score 30', { firstSeenAt: AT - 6 * DAY, score: 30 }, 30],
    ['first seen this cycle, score 45.5', { firstSeenAt: AT, score: 45.5 }, 45.5],
    ['6 days old, score 29.9', { firstSeenAt: AT - 6 * DAY, score: 29.9 }, null],
    ['exactly 7 days old is not new', { firstSeenAt: AT - 7 * DAY, score: 80 }, null],
    ['a mature baseline is not new', { firstSeenAt: AT - 6 * DAY, score: 80, baselineMature: true }, null],
  ]);
});

describe('trend: >= 7 rows in 24 hours averaging >= increase_percent above the baseline mean, score >= threshold', () => {
  // 7 recent rows (hourly, the last an hour ago) at raw 13; 7 older rows (daily, 2..8 days ago) at raw 7:
  // baseline mean (7 x 13 + 7 x 7) / 14 = 10; recent mean 13 = exactly 30 % above.
  const thirty = [...points(7, 7, 2 * DAY, DAY), ...points(7, 13, HOUR)];
  table('trend', 20, [
    ['recent mean 30 % above, score 20', { history: thirty, score: 20 }, 20],
    ['recent mean 30 % above, score 19.9', { history: thirty, score: 19.9 }, null],
    ['only 6 rows in the last 24 hours', { history: [...points(7, 7, 2 * DAY, DAY), ...points(6, 13, HOUR)], score: 50 }, null],
    // 7 x 12.9 + 7 x 7 = 139.3 / 14 = 9.95; 12.9 / 9.95 = +29.6 %.
    ['recent mean 29.6 % above', { history: [...points(7, 7, 2 * DAY, DAY), ...points(7, 12.9, HOUR)], score: 50 }, null],
    // The oldest recent row sits exactly 24 hours before the cycle: it counts.
    ['a row exactly 24 hours old counts', { history: [...points(7, 7, 2 * DAY, DAY), ...points(7, 13, 18 * HOUR, HOUR)], score: 20 }, 20],
    ['a row 24 hours and 1 ms old does not', { history: [...points(7, 7, 2 * DAY, DAY), ...points(7, 13, 18 * HOUR + 1, HOUR)], score: 20 }, null],
    ['a flat history never trends', { history: points(14, 10, HOUR), score: 90 }, null],
  ]);
  // increase_percent 50: recent 15, older 5 -> mean 10, +50 %: fires; the 30 % history does not.
  table('trend', 20, [
    ['+50 % with increase_percent 50', { history: [...points(7, 5, 2 * DAY, DAY), ...points(7, 15, HOUR)], score: 25 }, 25],
    ['+30 % with increase_percent 50', { history: thirty, score: 25 }, null],
  ], { increase_percent: 50 });
});

describe('co_occurrence: one element with >= 2 signal types whose combined count >= threshold', () => {
  table('co_occurrence', 5, [
    ['2 types, 5 signals', { elements: [{ element: 'button.pay', types: 2, count: 5 }] }, 5],
    ['2 types, 4 signals', { elements: [{ element: 'button.pay', types: 2, count: 4 }] }, null],
    ['1 type, 50 signals', { elements: [{ element: 'button.pay', types: 1, count: 50 }] }, null],
    ['the worst element counts: 4 on one, 6 on another', { elements: [{ element: 'a.more', types: 2, count: 4 }, { element: 'input.card', types: 3, count: 6 }] }, 6],
    ['counts on different elements do not add up', { elements: [{ element: 'a', types: 2, count: 3 }, { element: 'b', types: 2, count: 3 }] }, null],
    ['no elements', { elements: [] }, null],
  ]);
  it('names the element in its message', () => {
    const firing = evaluatePage(rule('co_occurrence', 5), page({ elements: [{ element: 'input.card', types: 3, count: 6 }, { element: 'a', types: 1, count: 99 }] }));
    expect(firing!.message).toContain('input.card');
  });
});

describe('positive: the score crosses downward below threshold', () => {
  table('positive', 20, [
    ['20 (at the threshold) -> 19.9', { previousScore: 20, score: 19.9 }, 19.9],
    ['45 -> 3', { previousScore: 45, score: 3 }, 3],
    ['25 -> 20 is not below', { previousScore: 25, score: 20 }, null],
    ['19.9 -> 10 was already below: no crossing', { previousScore: 19.9, score: 10 }, null],
    ['no previous score -> 5 needs a previous score at or above', { previousScore: null, score: 5 }, null],
    ['10 -> 30 goes up', { previousScore: 10, score: 30 }, null],
  ]);
});

describe('budget: the score crosses above threshold (a page with no previous score counts as below)', () => {
  table('budget', 40, [
    ['first score 40.1', { previousScore: null, score: 40.1 }, 40.1],
    ['first score 40 is not above', { previousScore: null, score: 40 }, null],
    ['40 (at the target) -> 41', { previousScore: 40, score: 41 }, 41],
    ['10 -> 90', { previousScore: 10, score: 90 }, 90],
    ['41 -> 50 was already above: no crossing', { previousScore: 41, score: 50 }, null],
    ['50 -> 30 goes down', { previousScore: 50, score: 30 }, null],
  ], { period: 'weekly' });
});

describe('revenue_threshold: monthly revenue at risk crosses above threshold', () => {
  it.each([
    ['first value 1000.01', { revenueAtRisk: 1000.01, previousRevenueAtRisk: null }, 1000.01],
    ['first value 1000 is not above', { revenueAtRisk: 1000, previousRevenueAtRisk: null }, null],
    ['900 -> 1500', { revenueAtRisk: 1500, previousRevenueAtRisk: 900 }, 1500],
    ['1000 (at) -> 1000.5', { revenueAtRisk: 1000.5, previousRevenueAtRisk: 1000 }, 1000.5],
    ['1200 -> 1500 was already above', { revenueAtRisk: 1500, previousRevenueAtRisk: 1200 }, null],
    ['1500 -> 500 goes down', { revenueAtRisk: 500, previousRevenueAtRisk: 1500 }, null],
    ['no conversion tracking (null)', { revenueAtRisk: null, previousRevenueAtRisk: null }, null],
  ] as [string, Partial<SiteContext>, number | null][])('revenue_threshold > 1000: %s', (_name, ctx, expected) => {
    const firing = evaluateSite(rule('revenue_threshold', 1000), site(ctx));
    if (expected === null) expect(firing).toBeNull();
    else expect(firing?.conditionValue).toBe(expected);
  });

  it('says the amounts as money, in the site\'s currency', () => {
    expect(evaluateSite(rule('revenue_threshold', 200), site({ revenueAtRisk: 16459.73, currency: 'USD' }))?.message)
      .toBe('Monthly revenue at risk is $16,460, over $200');
    expect(evaluateSite(rule('revenue_threshold', 200), site({ revenueAtRisk: 525, currency: 'EUR' }))?.message)
      .toBe('Monthly revenue at risk is €525, over €200');
  });
});

describe('stalled_signups: conversions below threshold % of the same hours\' 7-day average, with min_expected', () => {
  it.each([
    ['4 of 10 expected: 40 %', {}, { conversions: 4, expectedConversions: 10 }, 40],
    ['5 of 10 expected: 50 % is not below', {}, { conversions: 5, expectedConversions: 10 }, null],
    ['conversions stop: 0 of 12', {}, { conversions: 0, expectedConversions: 12 }, 0],
    ['0 of 9.9 expected: under the default min_expected 10', {}, { conversions: 0, expectedConversions: 9.9 }, null],
    ['1 of 6 with min_expected 5: 16.67 %', { min_expected: 5 }, { conversions: 1, expectedConversions: 6 }, 16.67],
    ['0 of 20 with min_expected 25', { min_expected: 25 }, { conversions: 0, expectedConversions: 20 }, null],
    ['30 of 20: more than usual', {}, { conversions: 30, expectedConversions: 20 }, null],
    ['no data', {}, { conversions: null, expectedConversions: null }, null],
  ] as [string, Record<string, unknown>, Partial<SiteContext>, number | null][])('stalled_signups < 50 %%: %s', (_name, config, ctx, expected) => {
    const firing = evaluateSite(rule('stalled_signups', 50, config), site(ctx));
    if (expected === null) expect(firing).toBeNull();
    else expect(firing?.conditionValue).toBeCloseTo(expected, 2);
  });
});

describe('page and site triggers are kept apart', () => {
  it('revenue_threshold and stalled_signups are the site-level triggers', () => {
    expect([...SITE_TRIGGERS].sort()).toEqual(['revenue_threshold', 'stalled_signups']);
  });
  it('a page trigger never fires from site inputs and a site trigger never from a page', () => {
    expect(evaluateSite(rule('budget', 1), site({ revenueAtRisk: 50, conversions: 0, expectedConversions: 100 }))).toBeNull();
    expect(evaluatePage(rule('revenue_threshold', 0), page({ score: 100, previousScore: 0 }))).toBeNull();
    expect(evaluatePage(rule('stalled_signups', 100), page({ score: 100, previousScore: 0 }))).toBeNull();
  });
});

describe('severity', () => {
  it.each([
    ['score 81', 81, 10, 10, 'critical'],
    ['score 80.9', 80.9, 10, 10, 'high'],
    ['score 61', 61, 10, 10, 'high'],
    ['score 60.9', 60.9, 10, 10, 'warning'],
    ['condition twice the threshold', 30, 20, 10, 'critical'],
    ['condition 1.99 x the threshold', 30, 19.9, 10, 'warning'],
    ['a site-level alert (no score) at twice', null, 2000, 1000, 'critical'],
    ['a site-level alert (no score) under twice', null, 1500, 1000, 'warning'],
    ['threshold 0 never doubles', 10, 10, 0, 'warning'],
  ] as [string, number | null, number, number, string][])('%s', (_name, score, condition, threshold, expected) => {
    expect(alertSeverity(score, condition, threshold)).toBe(expected);
  });
});

describe('normalCdf', () => {
  it.each([[0, 0.5], [1.645, 0.95], [-1.96, 0.025], [2.326, 0.99], [3, 0.99865]])('Phi(%s) = %s', (z, p) => {
    expect(normalCdf(z)).toBeCloseTo(p, 4);
  });
});
