// The pure scoring rules of DOMAIN.md section 3 (page scores, baselines, budgets) as tables of
// hand-computed cases. Nothing here touches a store or a clock.
import { describe, expect, it } from 'vitest';
import {
  baseline, BASELINE_MS, calibratedScore, deviationFrom, duckState, multiplier, overallScore, rawScore, scorePage, scoringWindow,
  sumsOf, trendOf, weighSignals, type Baseline, type SignalFire,
} from '../src/pipeline/scoring.ts';
import { clampConfidence, FALLBACK_WEIGHT, weightResolver } from '../src/domain/signals.ts';
import { budgetConsumption, budgetStatus, matchesPattern, periodBounds } from '../src/pipeline/budgets.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T = Date.UTC(2026, 9, 8, 12, 0, 0); // a Thursday
const weight = weightResolver();

/** `count` fires of `type`, one per user u<offset>..u<offset+count-1> (or all from `users`). */
function fires(type: string, count: number, confidence = 1, users?: string[]): SignalFire[] {
  return Array.from({ length: count }, (_, i) => ({ type, user: users ? users[i % users.length] : `u${i}`, confidence, at: T - MIN }));
}

const mature = (mean: number, stdDev: number): Baseline => ({ mean, stdDev, rows: 10, mature: true });

describe('the worked example of DOMAIN.md', () => {
  const eight = Array.from({ length: 8 }, (_, i) => `user-${i}`);
  const example = [...fires('rage_click', 5, 0.9, eight), ...fires('form_abandonment', 8, 1, eight)];

  it('100 active users, 5 rage clicks at 0.9 and 8 form abandonments from the same 8 users', () => {
    const result = scorePage({ fires: example, activeUsers: 100, weight, baseline: null });
    expect(result.raw).toBeCloseTo(2.725, 4);
    // 100 x (1 - e^-0.2725) = 23.853
    expect(result.score).toBe(23.9);
    expect(result.duckState).toBe('watching');
    expect(result.dominantSignal).toBe('form_abandonment');
    expect(result.frustratedUsers).toBe(8);
    expect(result.affectedUsers).toBe(8);
    expect(result.signalCount).toBe(13);
    expect(result.breakdown).toEqual([
      { signal: 'form_abandonment', count: 8, weight: 20, weighted_score: 160, percentage: 59 },
      { signal: 'rage_click', count: 5, weight: 25, weighted_score: 112.5, percentage: 41 },
    ]);
    expect(result.deviation).toBeNull();
    expect(result.trend).toBe('stable');
  });

  it('with a mature baseline of mean 30 and sd 8: score unchanged, deviation -3.41, trend down', () => {
    const result = scorePage({ fires: example, activeUsers: 100, weight, baseline: mature(30, 8) });
    expect(result.score).toBe(23.9);
    expect(result.raw).toBeCloseTo(2.725, 4);
    expect(result.deviation).not.toBeNull();
    expect(result.deviation!).toBeCloseTo(-3.41, 2);
    expect(result.trend).toBe('down');
  });

  it('the same baseline built from stored raw scores gives the same deviation', () => {
    // Four rows at 30 - a and four at 30 + a have mean 30 and sample sd sqrt(8 a^2 / 7) = 8.
    const a = Math.sqrt(56);
    const raws = [30 - a, 30 - a, 30 - a, 30 - a, 30 + a, 30 + a, 30 + a, 30 + a];
    const base = baseline(sumsOf(raws), 7 * DAY);
    expect(base.mean).toBeCloseTo(30, 6);
    expect(base.stdDev).toBeCloseTo(8, 6);
    expect(base.mature).toBe(true);
    const result = scorePage({ fires: example, activeUsers: 100, weight, baseline: base });
    expect(result.score).toBe(23.9);
    expect(result.deviation!).toBeCloseTo(-3.41, 2);
    expect(result.trend).toBe('down');
  });
});

describe('scorePage', () => {
  it.each([
    // [case, fires, active users, raw, score]
    ['one dead click among 10 users (10 % affected: x 1.5)', fires('dead_click', 1), 10, 1.8, 16.5],
    ['confidence scales the weight', fires('rage_click', 2, 0.5), 10, 3.75, 31.3],
    ['confidence 0 adds nothing', fires('rage_click', 4, 0), 10, 0, 0],
    ['no signals', [], 50, 0, 0],
    ['a huge raw reads 100, the raw kept', fires('rage_click', 30, 1, ['a', 'b', 'c']), 3, 625, 100],
    ['10 weighted per user (one user of 12: x 1) reads 63.2', fires('dead_click', 10, 1, ['a']), 12, 10, 63.2],
    ['rounded to one decimal', fires('dead_click', 1), 7, 2.5714, 22.7],
  ] as const)('%s', (_name, input, activeUsers, raw, score) => {
    const result = scorePage({ fires: input, activeUsers, weight, baseline: null });
    expect(result.raw).toBeCloseTo(raw, 4);
    expect(result.score).toBe(score);
    expect(result.activeUsers).toBe(activeUsers);
  });

  it('zero active users: score 0, no breakdown, stable, no crash', () => {
    for (const activeUsers of [0, -1]) {
      const result = scorePage({ fires: fires('rage_click', 5), activeUsers, weight, baseline: mature(10, 2) });
      expect(result).toMatchObject({
        score: 0, raw: 0, breakdown: [], dominantSignal: null, activeUsers: 0, affectedUsers: 0, frustratedUsers: 0,
        signalCount: 0, deviation: null, trend: 'stable', duckState: 'calm',
      });
    }
    expect(rawScore(100, 0, 5)).toBe(0);
  });

  it.each([
    // confidence as it reaches the scoring function -> the confidence counted. One rage click (25) among
    // 10 users, one of them affected (x 1.5): raw = 25 x cf / 10 x 1.5.
    ['NaN counts as 1', Number.NaN, 1, 31.3],
    ['missing counts as 1', undefined, 1, 31.3],
    ['null counts as 1', null, 1, 31.3],
    ['above 1 is clamped to 1', 1.7, 1, 31.3],
    ['+Infinity is clamped to 1', Number.POSITIVE_INFINITY, 1, 31.3],
    ['below 0 is clamped to 0', -0.5, 0, 0],
    ['-Infinity is clamped to 0', Number.NEGATIVE_INFINITY, 0, 0],
    ['0.4 stays 0.4', 0.4, 0.4, 13.9],
  ])('confidence in scoring: %s', (_name, cf, counted, score) => {
    const input = [{ type: 'rage_click', user: 'a', confidence: cf as number, at: T - MIN }];
    const result = scorePage({ fires: input, activeUsers: 10, weight, baseline: null });
    expect(result.raw).toBeCloseTo(25 * counted / 10 * 1.5, 4);
    expect(result.score).toBe(score);
    expect(result.breakdown[0].weighted_score).toBeCloseTo(25 * counted, 4);
  });

  it('a NaN confidence among others does not poison the sum', () => {
    // 2 x 0.5 + 1 (NaN) = 2 -> 25 x 2 / 5 = 10, x 2.5 (3 of 5 users affected) = 25 -> 91.8
    const input = [...fires('rage_click', 2, 0.5), { type: 'rage_click', user: 'z', confidence: Number.NaN, at: T - MIN }];
    const result = scorePage({ fires: input, activeUsers: 5, weight, baseline: null });
    expect(result.raw).toBe(25);
    expect(result.score).toBe(91.8);
  });

  it.each([
    ['NaN', Number.NaN], ['undefined', undefined], ['null', null], ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('missing active users (%s): score 0, no breakdown, stable, no crash', (_name, activeUsers) => {
    const result = scorePage({ fires: fires('rage_click', 5), activeUsers: activeUsers as number, weight, baseline: mature(10, 2) });
    expect(result).toMatchObject({ score: 0, raw: 0, breakdown: [], dominantSignal: null, activeUsers: 0, deviation: null, trend: 'stable', duckState: 'calm' });
    expect(rawScore(100, activeUsers as number, 5)).toBe(0);
  });

  it('clamping at 0: nothing negative survives (negative confidences and custom weights)', () => {
    const custom = weightResolver({ rage_click: -40 }); // an invalid override falls back to the registry
    const result = scorePage({ fires: [...fires('rage_click', 3, -1), ...fires('dead_click', 2, -0.3)], activeUsers: 4, weight: custom, baseline: null });
    expect(result.raw).toBe(0);
    expect(result.score).toBe(0);
  });

  it('no signals: empty breakdown and no dominant signal', () => {
    const result = scorePage({ fires: [], activeUsers: 20, weight, baseline: null });
    expect(result.breakdown).toEqual([]);
    expect(result.dominantSignal).toBeNull();
    expect(result.affectedUsers).toBe(0);
  });

  it.each([
    // affected users, each with one dead click (weight 12), among 100 active users: the share is the count
    [0, 1, 0, 0],
    [1, 1, 0.12, 1.2],
    [9, 1, 1.08, 10.2],
    [10, 1.5, 1.8, 16.5],
    [24, 1.5, 4.32, 35.1],
    [25, 2, 6, 45.1],
    [49, 2, 11.76, 69.1],
    [50, 2.5, 15, 77.7],
    [100, 2.5, 30, 95],
  ])('%i affected users of 100: multiplier %d, raw %d, score %d', (affected, mult, raw, score) => {
    expect(multiplier(affected, 100)).toBe(mult);
    const result = scorePage({ fires: fires('dead_click', affected), activeUsers: 100, weight, baseline: null });
    expect(result.affectedUsers).toBe(affected);
    expect(result.raw).toBeCloseTo(raw, 4);
    expect(result.score).toBe(score);
  });

  it('the multiplier reads the share, so a busy and a quiet page with the same experience score the same', () => {
    // 12 % of users dead-click once, on a page of 25 and one of 2,500.
    const quiet = scorePage({ fires: fires('dead_click', 3), activeUsers: 25, weight, baseline: null });
    const busy = scorePage({ fires: fires('dead_click', 300), activeUsers: 2500, weight, baseline: null });
    expect(quiet.raw).toBeCloseTo(12 * 0.12 * 1.5, 4);
    expect(busy.raw).toBeCloseTo(quiet.raw, 4);
    expect(busy.score).toBe(quiet.score);
  });

  it.each([
    // share boundaries are exact: 10 of 100 is 10 %, 1 of 10 too
    [1, 10, 1.5], [0, 10, 1], [9, 100, 1], [10, 100, 1.5], [1, 4, 2], [2, 4, 2.5], [3, 0, 1], [5, Number.NaN, 1],
  ])('multiplier(%d affected, %d active) = %d', (affected, active, mult) => {
    expect(multiplier(affected, active)).toBe(mult);
  });

  it('counts a user with many fires once toward the affected share', () => {
    // 30 fires from 9 users: still multiplier 1.
    const result = scorePage({ fires: fires('dead_click', 30, 1, Array.from({ length: 9 }, (_, i) => `u${i}`)), activeUsers: 100, weight, baseline: null });
    expect(result.affectedUsers).toBe(9);
    expect(result.raw).toBeCloseTo(3.6, 4);
  });

  it('custom weights: an override replaces the registry, 0 switches a type off (also for the multiplier)', () => {
    const custom = weightResolver({ rage_click: 50, dead_click: 0, checkout_stuck: 3 });
    const input = [
      ...fires('rage_click', 2, 1, ['a', 'b']),
      ...fires('dead_click', 10, 1, Array.from({ length: 10 }, (_, i) => `d${i}`)),
      ...fires('checkout_stuck', 1, 1, ['a']),
    ];
    const result = scorePage({ fires: input, activeUsers: 10, weight: custom, baseline: null });
    expect(result.breakdown.map((b) => b.signal)).toEqual(['rage_click', 'checkout_stuck']);
    // (2 x 50 + 3) / 10 x 1.5 (2 of 10 affected: 20 %); the 10 dead-click users do not count
    expect(result.raw).toBeCloseTo(15.45, 4);
    expect(result.affectedUsers).toBe(2);
    expect(result.signalCount).toBe(3);
  });

  it('unknown types get the fallback weight 10', () => {
    expect(FALLBACK_WEIGHT).toBe(10);
    const result = scorePage({ fires: fires('my_custom_signal', 2), activeUsers: 4, weight, baseline: null });
    expect(result.breakdown).toEqual([{ signal: 'my_custom_signal', count: 2, weight: 10, weighted_score: 20, percentage: 100 }]);
    expect(result.raw).toBe(12.5); // 20 / 4, x 2.5: both fires from u0 and u1, half the users
  });

  it('an immature baseline leaves deviation null and trend stable', () => {
    const base = baseline(sumsOf([1, 1, 1, 1, 1, 1]), 30 * DAY);
    expect(base.mature).toBe(false);
    const result = scorePage({ fires: fires('rage_click', 20), activeUsers: 20, weight, baseline: base });
    expect(result.deviation).toBeNull();
    expect(result.trend).toBe('stable');
    expect(result.raw).toBe(62.5); // 20 x 25 / 20, x 2.5 for every user affected
    expect(result.score).toBe(99.8);
  });
});

describe('weightResolver and clampConfidence', () => {
  it.each([
    ['rage_click', {}, 25],
    ['form_abandonment', {}, 20],
    ['scroll_depth_abandon', {}, 6],
    ['value_collapse_downgrade', {}, 40],
    ['never_heard_of_it', {}, 10],
    ['rage_click', { rage_click: 40 }, 40],
    ['rage_click', { rage_click: 0 }, 0],
    ['never_heard_of_it', { never_heard_of_it: 7 }, 7],
    ['rage_click', { rage_click: -5 }, 25],
    ['rage_click', { rage_click: Number.NaN }, 25],
    ['rage_click', { dead_click: 1 }, 25],
  ] as const)('%s with %o weighs %d', (type, overrides, expected) => {
    expect(weightResolver(overrides)(type)).toBe(expected);
  });

  it.each([
    [undefined, 1], [null, 1], [Number.NaN, 1], ['0.5', 1], [0.3, 0.3], [0, 0], [1, 1], [1.5, 1], [-0.2, 0],
    [Number.POSITIVE_INFINITY, 1], [Number.NEGATIVE_INFINITY, 0],
  ])('confidence %s becomes %d', (cf, expected) => {
    expect(clampConfidence(cf)).toBe(expected);
  });
});

describe('weighSignals', () => {
  it('sorts by weighted score descending, ties by type name', () => {
    const input = [...fires('zeta_custom', 1), ...fires('alpha_custom', 1), ...fires('rage_click', 1), ...fires('dead_click', 1)];
    const { breakdown, total, signalCount } = weighSignals(input, weight);
    expect(breakdown.map((b) => [b.signal, b.weighted_score])).toEqual([
      ['rage_click', 25], ['dead_click', 12], ['alpha_custom', 10], ['zeta_custom', 10],
    ]);
    expect(total).toBe(57);
    expect(signalCount).toBe(4);
  });

  it('equal weighted scores tie on the name even when floating point disagrees (18 x 0.46 = 12 x 0.69)', () => {
    const { breakdown } = weighSignals([...fires('information_maze', 1, 0.46), ...fires('false_swipe', 1, 0.69)], weight);
    expect(breakdown.map((b) => [b.signal, b.weighted_score, b.percentage])).toEqual([['false_swipe', 8.28, 50], ['information_maze', 8.28, 50]]);
  });

  it('percentages are rounded integers of the total', () => {
    const thirds = weighSignals([...fires('a_type', 1), ...fires('b_type', 1), ...fires('c_type', 1)], weight);
    expect(thirds.breakdown.map((b) => b.percentage)).toEqual([33, 33, 33]);
    // 25 : 12 : 10 of 47 -> 53.19, 25.53, 21.28
    const mixed = weighSignals([...fires('rage_click', 1), ...fires('dead_click', 1), ...fires('x_type', 1)], weight);
    expect(mixed.breakdown.map((b) => b.percentage)).toEqual([53, 26, 21]);
  });

  it('sums confidences per type', () => {
    const { breakdown } = weighSignals([...fires('rage_click', 3, 0.5), ...fires('rage_click', 1, 0.25)], weight);
    expect(breakdown).toEqual([{ signal: 'rage_click', count: 4, weight: 25, weighted_score: 43.75, percentage: 100 }]);
  });

  it('switched-off types are left out entirely', () => {
    const { breakdown, total, signalCount } = weighSignals(fires('dead_click', 5), weightResolver({ dead_click: 0 }));
    expect(breakdown).toEqual([]);
    expect(total).toBe(0);
    expect(signalCount).toBe(0);
  });
});

describe('baseline, deviation and trend', () => {
  it('mean and sample standard deviation (n - 1)', () => {
    const base = baseline(sumsOf([1, 2, 3, 4, 5, 6, 7]), 7 * DAY);
    expect(base.mean).toBe(4);
    expect(base.stdDev).toBeCloseTo(Math.sqrt(28 / 6), 10);
    expect(base.rows).toBe(7);
    expect(base.mature).toBe(true);
  });

  it('one row or none has sd 0', () => {
    expect(baseline(sumsOf([5]), 8 * DAY)).toEqual({ mean: 5, stdDev: 0, rows: 1, mature: false });
    expect(baseline(sumsOf([]), 8 * DAY)).toEqual({ mean: 0, stdDev: 0, rows: 0, mature: false });
  });

  it.each([
    ['7 rows over 7 days', 7, 7 * DAY, true],
    ['28 rows over 10 days', 28, 10 * DAY, true],
    ['6 rows over 7 days', 6, 7 * DAY, false],
    ['7 rows over 6.9 days', 7, 6.9 * DAY, false],
    ['7 rows one millisecond short of 7 days', 7, BASELINE_MS - 1, false],
    ['100 rows over 1 day', 100, DAY, false],
  ])('maturity: %s -> %s', (_name, rows, span, expected) => {
    const base = baseline(sumsOf(Array.from({ length: rows }, (_, i) => 10 + (i % 3))), span);
    expect(base.mature).toBe(expected);
    const deviation = deviationFrom(100, base);
    if (expected) {
      expect(deviation).not.toBeNull();
      expect(trendOf(deviation)).toBe('up');
    } else {
      expect(deviation).toBeNull();
      expect(trendOf(deviation)).toBe('stable');
    }
  });

  it.each([
    // raw, mean, sd, deviation, trend
    [11, 10, 1, 1, 'stable'],
    [11.01, 10, 1, 1.01, 'up'],
    [9, 10, 1, -1, 'stable'],
    [8.99, 10, 1, -1.01, 'down'],
    [10, 10, 0, 0, 'stable'],
    [11, 10, 0.5, 1, 'stable'], // sd floored at 1: not 2
    [11.5, 10, 0.2, 1.5, 'up'],
    [2.5, 10, 0, -7.5, 'down'],
    [30, 10, 4, 5, 'up'],
    [14, 10, 4, 1, 'stable'],
  ] as const)('raw %d against mean %d sd %d: deviation %d, trend %s', (raw, mean, sd, deviation, trend) => {
    const value = deviationFrom(raw, mature(mean, sd));
    expect(value).toBeCloseTo(deviation, 4);
    expect(trendOf(value)).toBe(trend);
  });

  it.each([
    [null, 'stable'], [0, 'stable'], [1.0, 'stable'], [1.01, 'up'], [-1.0, 'stable'], [-1.01, 'down'], [50, 'up'], [-50, 'down'],
  ] as const)('trendOf(%s) is %s', (deviation, trend) => {
    expect(trendOf(deviation)).toBe(trend);
  });

  it('no baseline or an immature one gives no deviation', () => {
    expect(deviationFrom(50, null)).toBeNull();
    expect(deviationFrom(50, { mean: 1, stdDev: 1, rows: 3, mature: false })).toBeNull();
  });
});

describe('duck state', () => {
  it.each([
    [0, 'calm'], [20, 'calm'], [20.1, 'watching'], [40, 'watching'], [40.1, 'alert'], [60, 'alert'],
    [60.1, 'flustered'], [80, 'flustered'], [80.1, 'critical'], [100, 'critical'],
  ] as const)('score %d is %s', (score, state) => {
    expect(duckState(score)).toBe(state);
  });

  it('the page result carries the state of its score', () => {
    // 1 user of 10 rage-clicks: 25 / 10 x 1.5 = 3.75 -> 31.3, watching
    const result = scorePage({ fires: fires('rage_click', 1), activeUsers: 10, weight, baseline: null });
    expect(result.score).toBe(31.3);
    expect(result.duckState).toBe('watching');
  });
});

describe('calibratedScore: 100 x (1 - e^(-raw / 10)), one decimal', () => {
  it.each([
    [-5, 0], [0, 0], [Number.NaN, 0], [0.004, 0], [0.0105, 0.1], [1, 9.5], [2.725, 23.9], [5, 39.3], [10, 63.2], [16.0944, 80], [20, 86.5], [46, 99],
    [100, 100],
  ])('%d -> %d', (raw, score) => {
    expect(calibratedScore(raw)).toBe(score);
  });

  it('never goes down as raw grows, and never passes 100', () => {
    let previous = 0;
    for (let raw = 0; raw <= 200; raw += 0.37) {
      const score = calibratedScore(raw);
      expect(score).toBeGreaterThanOrEqual(previous);
      expect(score).toBeLessThanOrEqual(100);
      previous = score;
    }
  });
});

describe('scoringWindow', () => {
  const interval = 15 * MIN;
  const users = (...minutesAgo: number[]) => minutesAgo.map((m) => T - m * MIN);

  it('10 users in the last interval: the window is that interval', () => {
    expect(scoringWindow(users(1, 2, 3, 4, 5, 6, 7, 8, 9, 14), T, interval)).toEqual({ start: T - interval, activeUsers: 10 });
  });

  it('fewer extends backward in whole intervals until 10 users', () => {
    // 9 in the last interval, the 10th 20 minutes ago: two intervals.
    expect(scoringWindow(users(1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 50), T, interval)).toEqual({ start: T - 2 * interval, activeUsers: 10 });
    // the 10th 46 minutes ago: four intervals (60 minutes) hold it and the 11th at 50.
    expect(scoringWindow(users(1, 2, 3, 4, 5, 6, 7, 8, 9, 46, 50), T, interval)).toEqual({ start: T - 4 * interval, activeUsers: 11 });
  });

  it('a user exactly at the window start is inside', () => {
    expect(scoringWindow(users(1, 2, 3, 4, 5, 6, 7, 8, 9, 30), T, interval)).toEqual({ start: T - 2 * interval, activeUsers: 10 });
  });

  it('stops at 24 hours with however many users it has', () => {
    expect(scoringWindow(users(1, 600, 1439), T, interval)).toEqual({ start: T - DAY, activeUsers: 3 });
    expect(scoringWindow(users(1, 2), T, interval)).toEqual({ start: T - DAY, activeUsers: 2 });
    expect(scoringWindow([], T, interval)).toEqual({ start: T - DAY, activeUsers: 0 });
    expect(scoringWindow(users(1, 1440), T, interval)).toEqual({ start: T - DAY, activeUsers: 2 });
  });

  it('only whole intervals: a 7-hour interval extends to 21 hours at most', () => {
    expect(scoringWindow(users(1, 22 * 60), T, 7 * HOUR)).toEqual({ start: T - 21 * HOUR, activeUsers: 1 });
    expect(scoringWindow(users(1, 8 * 60, 20 * 60), T, 7 * HOUR)).toEqual({ start: T - 21 * HOUR, activeUsers: 3 });
  });

  it('an interval of a day or more is one interval', () => {
    expect(scoringWindow(users(1, 2), T, DAY)).toEqual({ start: T - DAY, activeUsers: 2 });
    expect(scoringWindow(users(1, 2, 30 * 60), T, 2 * DAY)).toEqual({ start: T - 2 * DAY, activeUsers: 3 });
  });
});

describe('overallScore', () => {
  it.each([
    ['empty', [], 0],
    ['no users', [{ score: 50, activeUsers: 0 }], 0],
    ['one page', [{ score: 42.3, activeUsers: 5 }], 42.3],
    ['weighted by active users', [{ score: 10, activeUsers: 30 }, { score: 40, activeUsers: 10 }], 17.5],
    ['rounded to one decimal', [{ score: 28.1, activeUsers: 12 }, { score: 2.4, activeUsers: 5 }, { score: 3, activeUsers: 4 }], 17.2],
    ['a page without users weighs nothing', [{ score: 90, activeUsers: 0 }, { score: 10, activeUsers: 3 }], 10],
  ] as const)('%s', (_name, pages, expected) => {
    expect(overallScore(pages)).toBe(expected);
  });
});

describe('budgets', () => {
  describe('periodBounds', () => {
    it.each([
      ['daily', '2026-10-08T13:00:00Z', '2026-10-08T00:00:00.000Z', '2026-10-09T00:00:00.000Z'],
      ['daily', '2026-10-08T00:00:00Z', '2026-10-08T00:00:00.000Z', '2026-10-09T00:00:00.000Z'],
      ['daily', '2026-12-31T23:59:59Z', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      // 2026-10-08 is a Thursday: the week began on Sunday the 4th.
      ['weekly', '2026-10-08T13:00:00Z', '2026-10-04T00:00:00.000Z', '2026-10-11T00:00:00.000Z'],
      ['weekly', '2026-10-04T00:00:00Z', '2026-10-04T00:00:00.000Z', '2026-10-11T00:00:00.000Z'],
      ['weekly', '2026-10-03T23:59:59Z', '2026-09-27T00:00:00.000Z', '2026-10-04T00:00:00.000Z'],
      ['weekly', '2026-12-30T10:00:00Z', '2026-12-27T00:00:00.000Z', '2027-01-03T00:00:00.000Z'],
      ['monthly', '2026-10-08T13:00:00Z', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
      ['monthly', '2026-12-15T00:00:00Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['monthly', '2028-02-29T12:00:00Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ] as const)('%s at %s: %s to %s', (period, now, start, end) => {
      const bounds = periodBounds(period, Date.parse(now));
      expect(new Date(bounds.start).toISOString()).toBe(start);
      expect(new Date(bounds.end).toISOString()).toBe(end);
    });
  });

  describe('budgetConsumption', () => {
    const day = Date.UTC(2026, 9, 8); // Thursday 2026-10-08 00:00
    const at = (hours: number) => day + hours * HOUR;

    it('each row holds until the next; the row before the period gives its starting state', () => {
      const history = [
        { at: at(-4), score: 50 }, // yesterday 20:00, above 30: holds until 03:00 today
        { at: at(3), score: 10 },
        { at: at(6), score: 40 }, // above 06:00 - 09:00
        { at: at(9), score: 20 },
      ];
      expect(budgetConsumption(history, 30, 'daily', at(12))).toEqual({
        period: 'daily', period_start: '2026-10-08T00:00:00.000Z', period_end: '2026-10-09T00:00:00.000Z',
        minutes_above: 360, consumed_percent: 25, days_over: 1, status: 'within',
      });
    });

    it('the last row holds until now, never past it', () => {
      const history = [{ at: at(1), score: 10 }, { at: at(6), score: 90 }];
      // above 06:00 - 12:00 = 6 hours of 24
      expect(budgetConsumption(history, 30, 'daily', at(12))).toMatchObject({ minutes_above: 360, consumed_percent: 25, days_over: 1 });
      expect(budgetConsumption(history, 30, 'daily', at(7))).toMatchObject({ minutes_above: 60, consumed_percent: 4 });
    });

    it('a score equal to the target is not above it', () => {
      const history = [{ at: at(0), score: 30 }];
      expect(budgetConsumption(history, 30, 'daily', at(20))).toMatchObject({ minutes_above: 0, consumed_percent: 0, days_over: 0, status: 'within' });
    });

    it('no history consumes nothing', () => {
      expect(budgetConsumption([], 10, 'weekly', at(12))).toMatchObject({
        period: 'weekly', period_start: '2026-10-04T00:00:00.000Z', minutes_above: 0, consumed_percent: 0, days_over: 0, status: 'within',
      });
    });

    it('weekly: counts the calendar days with any time above', () => {
      const sunday = Date.UTC(2026, 9, 4);
      const history = [
        { at: sunday - DAY, score: 5 }, // Saturday, before the period
        { at: sunday + 22 * HOUR, score: 80 }, // Sunday 22:00 - Monday 02:00 above
        { at: sunday + 26 * HOUR, score: 5 },
        { at: sunday + 3 * DAY + 12 * HOUR, score: 80 }, // Wednesday 12:00 - 13:00 above
        { at: sunday + 3 * DAY + 13 * HOUR, score: 5 },
      ];
      // 5 hours of 168 = 2.98 %
      expect(budgetConsumption(history, 50, 'weekly', sunday + 4 * DAY + 12 * HOUR)).toMatchObject({
        minutes_above: 300, consumed_percent: 3, days_over: 3, status: 'within',
      });
    });

    it('monthly: above since the first row of the month', () => {
      const history = [{ at: Date.UTC(2026, 9, 1, 12), score: 5.6 }, { at: Date.UTC(2026, 9, 8, 12), score: 28.1 }];
      // 2026-10-01 12:00 to 2026-10-08 13:00 = 169 hours of 744 = 22.7 %
      expect(budgetConsumption(history, 5, 'monthly', Date.UTC(2026, 9, 8, 13))).toMatchObject({
        period_start: '2026-10-01T00:00:00.000Z', period_end: '2026-11-01T00:00:00.000Z',
        minutes_above: 169 * 60, consumed_percent: 23, days_over: 8, status: 'within',
      });
    });

    it.each([
      // above from 00:00 until `now` hours into the day
      [16.7, 70, 'warning'], // 69.58 -> 70
      [16.5, 69, 'within'], // 68.75
      [23.75, 99, 'warning'], // 98.96
      [23.9, 100, 'exhausted'], // 99.58 rounds to 100
    ])('above for %d hours of the day: %d %% %s', (hours, percent, status) => {
      const result = budgetConsumption([{ at: at(-1), score: 99 }], 50, 'daily', at(hours));
      expect(result.consumed_percent).toBe(percent);
      expect(result.status).toBe(status);
      expect(result.days_over).toBe(1);
    });

    it.each([[0, 'within'], [69, 'within'], [70, 'warning'], [99, 'warning'], [100, 'exhausted']] as const)('status of %d %% is %s', (percent, status) => {
      expect(budgetStatus(percent)).toBe(status);
    });
  });

  describe('matchesPattern', () => {
    it.each([
      ['/checkout', '/checkout', true],
      ['/checkout', '/checkout/step-2', false],
      ['/checkout', '/check', false],
      ['/checkout*', '/checkout', true],
      ['/checkout*', '/checkout/step-2', true],
      ['/checkout*', '/check', false],
      ['/checkout*', '/cart', false],
      ['*', '/anything/at/all', true],
      ['', '/x', true],
      [null, '/x', true],
      [undefined, '/x', true],
    ] as const)('%s matches %s: %s', (pattern, page, expected) => {
      expect(matchesPattern(pattern, page)).toBe(expected);
    });
  });
});
