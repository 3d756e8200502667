// domain/priority.ts, pure: the priority number and its words by tables of hand-computed cases,
// and the order in JavaScript. The formula (docs/issues.md "Priority"):
//   users 35 x log10(1 + users in 7 days) / log10(1001), at most 35
//   severity 30 x 1 / 0.75 / 0.5 / 0.25 (critical / high / medium / low)
//   weight 15 x weight / 40, at most 15
//   revenue 20 x log10(1 + monthly revenue at risk in currency units) / log10(10001), at most 20
//   without revenue data: no revenue part, the sum x 100 / 80.
import { describe, expect, it } from 'vitest';
import { comparePriority, issuePriority, priorityOf, type PriorityBasis } from '../src/domain/priority.ts';
import { formatMoney } from '../src/domain/money.ts';

const TRACKED: PriorityBasis = { revenueTracked: true, currency: 'USD' };
const UNTRACKED: PriorityBasis = { revenueTracked: false, currency: 'USD' };

describe('priorityOf', () => {
  // [case, severity, type, users in 7 days, weight, revenue cents, basis, priority, reason]
  const cases: [string, string, string, number, number | null, number | null, PriorityBasis, number, string][] = [
    // The worked example of docs/issues.md: 35 x log10(273) / log10(1001) = 28.4178; critical 30;
    // 15 x 25 / 40 = 9.375; 20 x log10(7168) / log10(10001) = 19.2768. 87.0696 -> 87.1.
    ['the worked example', 'critical', 'rage_click', 272, 25, 716_700, TRACKED, 87.1,
      'critical; 272 users in 7 days; $7,167/month at risk; rage click (weight 25)'],
    // A critical issue with 2 users and no estimate on a tracking site: 35 x log10(3) / log10(1001)
    // = 5.5656 + 30 + 15 x 30 / 40 = 11.25 + 0 = 46.8: below the high one with reach and money.
    ['critical, 2 users, no estimate', 'critical', 'dead_end_submit', 2, 30, null, TRACKED, 46.8,
      'critical; 2 users in 7 days; revenue at risk not estimated (too few sessions); dead end submit (weight 30)'],
    ['high, 272 users, the same money', 'high', 'rage_click', 272, 25, 716_700, TRACKED, 79.6,
      'high; 272 users in 7 days; $7,167/month at risk; rage click (weight 25)'],
    // No revenue data: (28.4178 + 22.5 + 9.375) x 1.25 = 75.37 -> 75.4; the reason names no money.
    ['no revenue data: the rest scaled to 100', 'high', 'rage_click', 272, 25, null, UNTRACKED, 75.4,
      'high; 272 users in 7 days; rage click (weight 25)'],
    // Revenue given while the site has no revenue data is not counted: the same 75.4.
    ['cents without revenue data do not count', 'high', 'rage_click', 272, 25, 716_700, UNTRACKED, 75.4,
      'high; 272 users in 7 days; rage click (weight 25)'],
    // Nothing but the lowest severity: 30 x 0.25 = 7.5 x 1.25 = 9.375 -> 9.4.
    ['no users, weight 0', 'low', 'custom_thing', 0, 0, null, UNTRACKED, 9.4, 'low; 0 users in 7 days; custom thing (weight 0)'],
    // 1 user: 35 x log10(2) / log10(1001) = 3.5115 + 15 + 15 x 10 / 40 = 3.75; x 1.25 = 27.83 -> 27.8.
    ['one user, medium', 'medium', 'odd_signal', 1, 10, null, UNTRACKED, 27.8, 'medium; 1 user in 7 days; odd signal (weight 10)'],
    // A known 0 estimate counts as 0, not as missing: 12.1478 + 15 + 4.5 + 0 = 31.6.
    ['an estimate of 0', 'medium', 'dead_click', 10, 12, 0, TRACKED, 31.6, 'medium; 10 users in 7 days; $0/month at risk; dead click (weight 12)'],
    // Every part at its cap: 1000 users, weight 40, 10,000 a month: 100.
    ['every part full', 'critical', 'value_collapse_downgrade', 1000, 40, 1_000_000, TRACKED, 100,
      'critical; 1,000 users in 7 days; $10,000/month at risk; value collapse downgrade (weight 40)'],
    // Beyond the caps it stays 100.
    ['beyond every cap', 'critical', 'x', 50_000, 90, 1_000_000_000, TRACKED, 100,
      'critical; 50,000 users in 7 days; $10,000,000/month at risk; x (weight 90)'],
    ['every part full without revenue data', 'critical', 'x', 1000, 40, null, UNTRACKED, 100, 'critical; 1,000 users in 7 days; x (weight 40)'],
    // A custom weight of 12.5: 15 x 12.5 / 40 = 4.6875; 100 users 23.3804; high 22.5; x 1.25 = 63.21 -> 63.2.
    ['a fractional custom weight', 'high', 'rage_click', 100, 12.5, null, UNTRACKED, 63.2, 'high; 100 users in 7 days; rage click (weight 12.5)'],
  ];
  it.each(cases)('%s', (_name, severity, type, users7d, signalWeight, revenueAtRiskCents, basis, priority, reason) => {
    expect(priorityOf({ severity, type, users7d, signalWeight, revenueAtRiskCents }, basis)).toEqual({ priority, priority_reason: reason });
  });

  it('a null weight is the registry\'s (rage_click 25, an unknown type 10)', () => {
    expect(priorityOf({ severity: 'high', type: 'rage_click', users7d: 272, signalWeight: null, revenueAtRiskCents: null }, UNTRACKED).priority).toBe(75.4);
    expect(priorityOf({ severity: 'medium', type: 'odd_signal', users7d: 1, signalWeight: null, revenueAtRiskCents: null }, UNTRACKED))
      .toEqual({ priority: 27.8, priority_reason: 'medium; 1 user in 7 days; odd signal (weight 10)' });
  });

  it('grows with users, severity, weight and money, and stays within 0-100', () => {
    const base = { severity: 'medium', type: 't', users7d: 10, signalWeight: 12, revenueAtRiskCents: 10_000 };
    const p = (change: Partial<typeof base>, basis = TRACKED) => priorityOf({ ...base, ...change }, basis).priority;
    expect(p({ users7d: 11 })).toBeGreaterThan(p({}));
    expect(p({ severity: 'high' })).toBeGreaterThan(p({}));
    expect(p({ signalWeight: 13 })).toBeGreaterThan(p({}));
    expect(p({ revenueAtRiskCents: 20_000 })).toBeGreaterThan(p({}));
    for (const users7d of [0, 1, 5, 50, 500, 5000]) {
      for (const severity of ['low', 'medium', 'high', 'critical', 'unknown']) {
        for (const basis of [TRACKED, UNTRACKED]) {
          const v = p({ users7d, severity }, basis);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(100);
          expect(Math.round(v * 10) / 10).toBe(v);
        }
      }
    }
  });

  it('reads a stored row: issuePriority', () => {
    const row = { severity: 'critical', type: 'rage_click', users_7d: 272, signal_weight: 25, revenue_at_risk_cents: 716_700 };
    expect(issuePriority(row, TRACKED)).toEqual({ priority: 87.1, priority_reason: 'critical; 272 users in 7 days; $7,167/month at risk; rage click (weight 25)' });
  });
});

describe('formatMoney', () => {
  it.each([
    [716_700, 'USD', '$7,167'], [52_500, 'EUR', '€525'], [149, 'USD', '$1'], [150, 'GBP', '£2'], [0, 'USD', '$0'],
    [123_456_789, 'JPY', '¥1,234,568'], [500_000, 'XYZ', 'XYZ 5,000'],
  ])('%i cents in %s: %s', (cents, currency, text) => {
    expect(formatMoney(cents, currency).replace(/\u00a0/g, ' ')).toBe(text);
  });
  it('writes out a code Intl refuses', () => {
    expect(formatMoney(500_000, 'dollars')).toBe('5,000 dollars');
  });
});

describe('comparePriority: the order every face uses', () => {
  const row = (id: string, status: string, priority: number, last_seen_at: number | string) => ({ id, status, priority, last_seen_at });
  it('needing attention first, then priority, regressed first at equal priority, then most recently seen, then id', () => {
    const rows = [
      row('a', 'resolved', 99, 10), // not needing attention: last, whatever its priority
      row('b', 'open', 50, 10),
      row('c', 'regressed', 50, 5), // ties b on priority: regressed first, though seen earlier
      row('d', 'triaged', 70, 1),
      row('e', 'in_progress', 50, 20), // ties b: not regressed, seen later than b
      row('f', 'ignored', 10, 30),
      row('g', 'open', 50, 10), // ties b entirely: by id
      row('h', 'verified', 99, 40),
    ];
    expect([...rows].sort(comparePriority).map((r) => r.id)).toEqual(['d', 'c', 'e', 'b', 'g', 'h', 'a', 'f']);
  });
  it('takes ISO times as the records carry them', () => {
    const a = row('a', 'open', 50, '2026-11-02T10:00:00.000Z');
    const b = row('b', 'open', 50, '2026-11-02T11:00:00.000Z');
    expect([a, b].sort(comparePriority).map((r) => r.id)).toEqual(['b', 'a']);
  });
});
