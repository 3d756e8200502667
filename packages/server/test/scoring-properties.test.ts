// Properties of the scoring rules that must hold for every input, checked with fast-check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  baseline, duckState, multiplier, overallScore, scorePage, sumsOf, type Baseline, type SignalFire,
} from '../src/pipeline/scoring.ts';
import { clampConfidence, KNOWN_SIGNAL_TYPES, weightResolver } from '../src/domain/signals.ts';
import { budgetConsumption } from '../src/pipeline/budgets.ts';

const DAY = 24 * 60 * 60 * 1000;
const T = Date.UTC(2026, 9, 8, 12);
const weight = weightResolver();
const RUNS = { numRuns: 300 };

const type = fc.oneof(fc.constantFrom(...KNOWN_SIGNAL_TYPES), fc.constantFrom('custom_a', 'custom_b'));
// Confidences in hundredths (as the SDK sends them), plus whatever else arrives, clamped the
// way ingest clamps it.
const confidence = fc.oneof(
  fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
  fc.constantFrom(Number.NaN, undefined, -3, 7, Number.POSITIVE_INFINITY, '0.4').map(clampConfidence),
);
/** Any double at all: only for properties that rounding cannot disturb. */
const anyConfidence = fc.oneof(confidence, fc.double().map(clampConfidence));
const fire = (users: number, cf: fc.Arbitrary<number> = confidence) => fc.record({
  type, confidence: cf, user: fc.integer({ min: 0, max: users - 1 }).map((i) => `u${i}`), at: fc.constant(T - 1000),
});
const fires = (users = 60, maxLength = 80, cf?: fc.Arbitrary<number>) => fc.array(fire(users, cf), { maxLength });

const matureBaseline: fc.Arbitrary<Baseline> = fc.record({
  mean: fc.double({ min: 0, max: 500, noNaN: true }),
  stdDev: fc.double({ min: 0, max: 100, noNaN: true }),
  rows: fc.integer({ min: 7, max: 700 }),
  mature: fc.constant(true),
});

const affectedOf = (list: readonly SignalFire[]) => new Set(list.map((f) => f.user)).size;

describe('scoring properties', () => {
  it('the score is always within [0, 100], with one decimal, and its duck state follows it', () => {
    fc.assert(fc.property(fires(60, 80, anyConfidence), fc.integer({ min: 0, max: 2000 }), fc.option(matureBaseline), (input, activeUsers, base) => {
      const result = scorePage({ fires: input, activeUsers, weight, baseline: base });
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.score).toBeLessThanOrEqual(100);
      expect(Math.round(result.score * 10) / 10).toBe(result.score);
      expect(result.duckState).toBe(duckState(result.score));
      expect(result.raw).toBeGreaterThanOrEqual(0);
      if (activeUsers === 0) expect(result.score).toBe(0);
      if (input.length === 0) expect(result.score).toBe(0);
    }), RUNS);
  });

  it('the score stays within [0, 100] for unclamped confidences and any active-user count (NaN included)', () => {
    const wild = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1e9, 1e9));
    const users = fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0));
    fc.assert(fc.property(fires(60, 80, wild), users, (input, activeUsers) => {
      const result = scorePage({ fires: input, activeUsers, weight, baseline: null });
      expect(Number.isFinite(result.score)).toBe(true);
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.score).toBeLessThanOrEqual(100);
      expect(Number.isFinite(result.raw)).toBe(true);
    }), RUNS);
  });

  it('percentages of a breakdown are integers within [0, 100] and it is sorted by weighted score', () => {
    fc.assert(fc.property(fires(), fc.integer({ min: 1, max: 500 }), (input, activeUsers) => {
      const { breakdown, dominantSignal } = scorePage({ fires: input, activeUsers, weight, baseline: null });
      for (const row of breakdown) {
        expect(Number.isInteger(row.percentage)).toBe(true);
        expect(row.percentage).toBeGreaterThanOrEqual(0);
        expect(row.percentage).toBeLessThanOrEqual(100);
      }
      for (let i = 1; i < breakdown.length; i++) {
        const [a, b] = [breakdown[i - 1], breakdown[i]];
        expect(a.weighted_score > b.weighted_score || (a.weighted_score === b.weighted_score && a.signal.localeCompare(b.signal) <= 0)).toBe(true);
      }
      expect(dominantSignal).toBe(breakdown[0]?.signal ?? null);
    }), RUNS);
  });

  it('more fires of a type from already-affected users never lower the raw score (multiplier unchanged)', () => {
    const arb = fires(60).filter((list) => list.length > 0).chain((base) => fc.tuple(
      fc.constant(base),
      fc.array(fc.record({
        pick: fc.integer({ min: 0, max: base.length - 1 }),
        confidence: fc.double({ min: 0, max: 1, noNaN: true }),
        sameType: fc.boolean(),
        type,
      }), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 60, max: 1000 }),
    ));
    fc.assert(fc.property(arb, ([base, extras, activeUsers]) => {
      const more: SignalFire[] = [
        ...base,
        ...extras.map((e) => ({ type: e.sameType ? base[e.pick].type : e.type, user: base[e.pick].user, confidence: e.confidence, at: T - 500 })),
      ];
      const before = scorePage({ fires: base, activeUsers, weight, baseline: null });
      const after = scorePage({ fires: more, activeUsers, weight, baseline: null });
      expect(after.frustratedUsers).toBe(before.frustratedUsers);
      expect(after.raw).toBeGreaterThanOrEqual(before.raw);
      expect(after.score).toBeGreaterThanOrEqual(before.score);
    }), RUNS);
  });

  it('more fires from anyone never lower the raw score either: the multiplier only grows with the affected share', () => {
    fc.assert(fc.property(fires(100), fires(100, 60), fc.integer({ min: 100, max: 1000 }), (base, extra, activeUsers) => {
      const before = scorePage({ fires: base, activeUsers, weight, baseline: null });
      const after = scorePage({ fires: [...base, ...extra], activeUsers, weight, baseline: null });
      expect(after.affectedUsers).toBeGreaterThanOrEqual(before.affectedUsers);
      expect(multiplier(after.affectedUsers, activeUsers)).toBeGreaterThanOrEqual(multiplier(before.affectedUsers, activeUsers));
      expect(after.raw).toBeGreaterThanOrEqual(before.raw);
      expect(after.score).toBeGreaterThanOrEqual(before.score);
    }), RUNS);
  });

  it('the multiplier never decreases with more affected users, nor grows with more active users', () => {
    fc.assert(fc.property(fc.nat(1000), fc.nat(1000), fc.integer({ min: 1, max: 2000 }), (a, b, active) => {
      expect(multiplier(Math.max(a, b), active)).toBeGreaterThanOrEqual(multiplier(Math.min(a, b), active));
      expect(multiplier(a, active + b)).toBeLessThanOrEqual(multiplier(a, active));
    }));
  });

  it('the multiplier depends on the share only: scaling affected and active users alike changes nothing', () => {
    fc.assert(fc.property(fc.nat(1000), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 2, max: 50 }), (a, active, k) => {
      expect(multiplier(a * k, active * k)).toBe(multiplier(a, active));
    }));
  });

  it('doubling active users with the same affected users never raises the raw score, and halves it when the share keeps its band', () => {
    fc.assert(fc.property(fires(60), fc.integer({ min: 1, max: 5000 }), (input, activeUsers) => {
      const once = scorePage({ fires: input, activeUsers, weight, baseline: null });
      const twice = scorePage({ fires: input, activeUsers: activeUsers * 2, weight, baseline: null });
      expect(twice.affectedUsers).toBe(once.affectedUsers);
      expect(twice.affectedUsers).toBe(affectedOf(input));
      const ratio = multiplier(twice.affectedUsers, activeUsers * 2) / multiplier(once.affectedUsers, activeUsers);
      // both raws are rounded to 4 decimals
      expect(Math.abs(twice.raw - (once.raw / 2) * ratio)).toBeLessThanOrEqual(2e-4);
      expect(twice.raw).toBeLessThanOrEqual(once.raw);
      expect(twice.score).toBeLessThanOrEqual(once.score);
    }), RUNS);
  });

  it('a baseline maturing never changes the score, only deviation and trend', () => {
    const raws = fc.array(fc.double({ min: 0, max: 300, noNaN: true }), { minLength: 7, maxLength: 50 });
    fc.assert(fc.property(fires(), fc.integer({ min: 1, max: 500 }), raws, (input, activeUsers, history) => {
      const sums = sumsOf(history);
      const young = baseline(sums, 7 * DAY - 1);
      const grown = baseline(sums, 7 * DAY);
      expect(young.mature).toBe(false);
      expect(grown.mature).toBe(true);
      const before = scorePage({ fires: input, activeUsers, weight, baseline: young });
      const after = scorePage({ fires: input, activeUsers, weight, baseline: grown });
      const none = scorePage({ fires: input, activeUsers, weight, baseline: null });
      for (const result of [after, none]) {
        expect(result.score).toBe(before.score);
        expect(result.raw).toBe(before.raw);
        expect(result.breakdown).toEqual(before.breakdown);
        expect(result.duckState).toBe(before.duckState);
        expect(result.dominantSignal).toBe(before.dominantSignal);
      }
      expect(before.deviation).toBeNull();
      expect(before.trend).toBe('stable');
      expect(after.deviation).not.toBeNull();
      expect(after.deviation!).toBeCloseTo((after.raw - grown.mean) / Math.max(grown.stdDev, 1), 2);
    }), RUNS);
  });

  it('the overall score lies between the lowest and the highest page score', () => {
    const page = fc.record({ score: fc.integer({ min: 0, max: 1000 }).map((n) => n / 10), activeUsers: fc.integer({ min: 1, max: 10_000 }) });
    fc.assert(fc.property(fc.array(page, { minLength: 1, maxLength: 30 }), (pages) => {
      const overall = overallScore(pages);
      const scores = pages.map((p) => p.score);
      expect(overall).toBeGreaterThanOrEqual(Math.min(...scores) - 0.05);
      expect(overall).toBeLessThanOrEqual(Math.max(...scores) + 0.05);
    }), RUNS);
  });

  it('budget consumption is a percentage in [0, 100] and never falls when more time passes', () => {
    const row = fc.record({ offset: fc.integer({ min: -3 * DAY, max: 3 * DAY }), score: fc.integer({ min: 0, max: 100 }) });
    fc.assert(fc.property(fc.array(row, { maxLength: 20 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: DAY - 1 }), fc.integer({ min: 0, max: DAY }),
      (rows, target, intoDay, later) => {
        const start = Date.UTC(2026, 9, 8);
        const now = start + intoDay;
        const history = rows.map((r) => ({ at: start + r.offset, score: r.score })).filter((r) => r.at <= now).sort((a, b) => a.at - b.at);
        const result = budgetConsumption(history, target, 'daily', now);
        expect(result.consumed_percent).toBeGreaterThanOrEqual(0);
        expect(result.consumed_percent).toBeLessThanOrEqual(100);
        expect(result.minutes_above).toBeLessThanOrEqual(Math.ceil(intoDay / 60_000));
        const afterwards = budgetConsumption(history, target, 'daily', Math.min(now + later, start + DAY - 1));
        expect(afterwards.consumed_percent).toBeGreaterThanOrEqual(result.consumed_percent);
      }), RUNS);
  });
});
