// Pure: page and site confusion scores (DOMAIN.md section 3). Inputs are plain values, so
// every rule is tested with tables of cases; nothing here reads a clock or a store.
import { clampConfidence } from '../domain/signals.ts';
import type { DuckState, Trend } from '../domain/statuses.ts';
import { DAY_MS } from '../domain/time.ts';

export type { DuckState, Trend };

export const MIN_ACTIVE_FOR_WINDOW = 10;
export const MIN_ACTIVE_TO_SCORE = 3;
export const MAX_WINDOW_MS = DAY_MS;
export const BASELINE_MS = 7 * DAY_MS;
export const BASELINE_MIN_ROWS = 7;

export interface SignalFire {
  type: string;
  user: string;
  confidence: number;
  at: number;
}

export interface BreakdownRow { signal: string; count: number; weight: number; weighted_score: number; percentage: number }

export interface Baseline { mean: number; stdDev: number; rows: number; mature: boolean }

export interface PageScore {
  score: number;
  raw: number;
  breakdown: BreakdownRow[];
  dominantSignal: string | null;
  activeUsers: number;
  affectedUsers: number;
  frustratedUsers: number;
  signalCount: number;
  deviation: number | null;
  trend: Trend;
  duckState: DuckState;
}

/**
 * The breadth multiplier by the share of active users who are affected (not their count, so a
 * busy site and a quiet one read the same experience the same). Compared in integers, so 10 of
 * 100 is exactly 10 %.
 */
export function multiplier(affected: number, active: number): number {
  if (!(active > 0)) return 1.0;
  if (affected * 100 >= active * 50) return 2.5;
  if (affected * 100 >= active * 25) return 2.0;
  if (affected * 100 >= active * 10) return 1.5;
  return 1.0;
}

/**
 * The calibrated 0-100 score of a raw value: 100 x (1 - e^(-raw / 10)), one decimal. 0 at no
 * friction, 63.2 at a weighted friction of 10 per user, approaching 100 but never clamped flat.
 * It is applied to the stored (four-decimal) raw value, so a score always follows from its row.
 */
export function calibratedScore(raw: number): number {
  if (!(raw > 0)) return 0;
  return round1(100 * (1 - Math.exp(-round4(raw) / 10)));
}

export const round1 = (value: number) => Math.round((value + Number.EPSILON) * 10) / 10;
/** Raw scores are kept to four decimals: history rows, baselines and deviations use this value. */
export const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export function duckState(score: number): DuckState {
  if (score <= 20) return 'calm';
  if (score <= 40) return 'watching';
  if (score <= 60) return 'alert';
  if (score <= 80) return 'flustered';
  return 'critical';
}

export const DUCK_LABELS: Record<DuckState, string> = {
  calm: 'everything normal',
  watching: 'mild friction',
  alert: 'noticeable confusion',
  flustered: 'significant frustration',
  critical: 'something is broken',
};

export interface RawSums { n: number; sum: number; sumSquares: number }

export const sumsOf = (raws: readonly number[]): RawSums =>
  ({ n: raws.length, sum: raws.reduce((a, b) => a + b, 0), sumSquares: raws.reduce((a, b) => a + b * b, 0) });

/**
 * Mean and sample standard deviation (n - 1) of the trailing 7 days' raw scores, from their
 * count, sum and sum of squares (so the store aggregates them). Mature when the page's
 * history spans at least 7 days and the window holds at least 7 rows.
 */
export function baseline(sums: RawSums, historySpanMs: number): Baseline {
  const { n, sum, sumSquares } = sums;
  const mean = n ? sum / n : 0;
  const variance = n > 1 ? Math.max(0, (sumSquares - (sum * sum) / n) / (n - 1)) : 0;
  return { mean, stdDev: Math.sqrt(variance), rows: n, mature: n >= BASELINE_MIN_ROWS && historySpanMs >= BASELINE_MS };
}

/** The z-score against a mature baseline, with the standard deviation floored at 1. */
export function deviationFrom(raw: number, base: Baseline | null): number | null {
  if (!base || !base.mature) return null;
  return round4((raw - base.mean) / Math.max(base.stdDev, 1));
}

export function trendOf(deviation: number | null): Trend {
  if (deviation === null) return 'stable';
  if (deviation > 1) return 'up';
  if (deviation < -1) return 'down';
  return 'stable';
}

/**
 * The weighted signal total and its breakdown: per type, weight x sum of confidences,
 * sorted by weighted score (ties by type name); a weight of 0 switches a type off.
 */
export function weighSignals(fires: readonly SignalFire[], weight: (type: string) => number) {
  const byType = new Map<string, { count: number; confidence: number }>();
  for (const fire of fires) {
    if (weight(fire.type) <= 0) continue;
    const entry = byType.get(fire.type) ?? { count: 0, confidence: 0 };
    entry.count++;
    // Ingest already clamps; scoring holds to the rule too (missing or NaN is 1, else [0, 1]).
    entry.confidence += clampConfidence(fire.confidence);
    byType.set(fire.type, entry);
  }
  const rows = [...byType.entries()].map(([signal, { count, confidence }]) => ({
    signal, count, weight: weight(signal), weighted: weight(signal) * confidence,
  }));
  const total = rows.reduce((sum, r) => sum + r.weighted, 0);
  // Compare at the precision shown, so equal scores (18 x 0.46 and 12 x 0.69) tie on name, not on float noise.
  rows.sort((a, b) => round4(b.weighted) - round4(a.weighted) || a.signal.localeCompare(b.signal));
  const breakdown: BreakdownRow[] = rows.map((r) => ({
    signal: r.signal, count: r.count, weight: r.weight, weighted_score: round4(r.weighted),
    percentage: total > 0 ? Math.round((r.weighted / total) * 100) : 0,
  }));
  return { total, breakdown, signalCount: rows.reduce((n, r) => n + r.count, 0) };
}

/** Raw score: weighted friction per active user times the breadth multiplier of the affected share. */
export function rawScore(weightedTotal: number, activeUsers: number, affectedUsers: number): number {
  // Zero, negative, NaN or missing active users: no one to score, so 0.
  if (!(activeUsers > 0)) return 0;
  return (weightedTotal / activeUsers) * multiplier(affectedUsers, activeUsers);
}

export function scorePage(input: {
  fires: readonly SignalFire[];
  activeUsers: number;
  weight: (type: string) => number;
  baseline: Baseline | null;
}): PageScore {
  const { total, breakdown, signalCount } = weighSignals(input.fires, input.weight);
  // Affected (and so frustrated) users are those with at least one counted signal.
  const affected = new Set(input.fires.filter((f) => input.weight(f.type) > 0).map((f) => f.user)).size;
  if (!(input.activeUsers > 0)) {
    return { score: 0, raw: 0, breakdown: [], dominantSignal: null, activeUsers: 0, affectedUsers: 0, frustratedUsers: 0, signalCount: 0, deviation: null, trend: 'stable', duckState: 'calm' };
  }
  const raw = rawScore(total, input.activeUsers, affected);
  const score = calibratedScore(raw);
  const deviation = deviationFrom(raw, input.baseline);
  return {
    score,
    raw: round4(raw),
    breakdown,
    dominantSignal: breakdown[0]?.signal ?? null,
    activeUsers: input.activeUsers,
    affectedUsers: affected,
    frustratedUsers: affected,
    signalCount,
    deviation,
    trend: trendOf(deviation),
    duckState: duckState(score),
  };
}

/**
 * The scoring window of a page: the last interval, extended backward in whole intervals
 * (up to 24 hours) until it holds at least 10 active users. `lastSeen` holds, per user, the
 * time of their latest event on the page within the last 24 hours.
 */
export function scoringWindow(lastSeen: readonly number[], cycleAt: number, intervalMs: number): { start: number; activeUsers: number } {
  const maxSteps = Math.max(1, Math.floor(MAX_WINDOW_MS / intervalMs));
  let start = cycleAt - intervalMs;
  let active = 0;
  for (let step = 1; step <= maxSteps; step++) {
    start = cycleAt - step * intervalMs;
    active = lastSeen.filter((t) => t >= start).length;
    if (active >= MIN_ACTIVE_FOR_WINDOW) break;
  }
  return { start, activeUsers: active };
}

/** The site's overall score: the mean of page scores weighted by their active users. */
export function overallScore(pages: readonly { score: number; activeUsers: number }[]): number {
  const users = pages.reduce((n, p) => n + p.activeUsers, 0);
  if (users === 0) return 0;
  return round1(pages.reduce((sum, p) => sum + p.score * p.activeUsers, 0) / users);
}

/** A user's latest event on a page in the rows' span. */
export interface PageLastSeen { page: string; user: string; last: number }

/**
 * Confidence sums are exact: each clamped confidence counts as an integer number of 2^-78
 * units (truncated, which changes nothing for confidences of at least 2^-26 and less than
 * 2^-78 for any other), summed as integers and turned back into a number once, so a sum is
 * the same whatever the order or grouping of its terms, in SQL (which sums per segment, in
 * its own order; score-pages.ts) or here.
 */
export const CONFIDENCE_UNIT_BITS = 78;
export const confidenceUnits = (confidence: unknown): bigint => BigInt(Math.floor(clampConfidence(confidence) * 2 ** CONFIDENCE_UNIT_BITS));
export const confidenceOfUnits = (units: bigint): number => Number(units) * 2 ** -CONFIDENCE_UNIT_BITS;

/** The confidence units of a page's signals of one type in one segment [start, next start). */
export interface SegmentConfidence { page: string; type: string; start: number; units: bigint }

/** A user's latest signal of one type on a page in the rows' span. */
export interface LastFire { page: string; type: string; user: string; last: number }

export interface SpanScore { overall: number; pages: { page: string; score: number; active_users: number }[] }

/**
 * Scores of the windows [start, T) for several starts at once (deploy after-scores, DOMAIN.md 6),
 * from aggregates of [earliest start, T), never the signals themselves: per page, the users whose
 * latest event is at or after the start (active), those with a counted signal at or after it
 * (affected), and the confidences of the segments from the start on; no window extension, no
 * minimum of users. The segments are the spans between consecutive starts, so a window's
 * confidences are its own segment's plus those of the later windows.
 * One sweep, newest start first, adding each segment and each user once: the cost is rows +
 * starts x pages, not starts x rows.
 * As weighSignals does, confidences are summed per type and types weighed in order of first
 * fire newest first, which is the order of their latest signal (ties by name).
 * Floating point: the sweep over raw fires summed doubles newest first; per-segment aggregates
 * cannot replay that order, so confidence sums are exact instead (confidenceUnits), the same on
 * both dialects and whatever the grouping. They equal a sum of doubles up to its last bits, and a
 * score (rounded to 0.1 by calibratedScore, as are the overall score and the delta) can only differ
 * when the raw score sits within those bits of a rounding boundary, where the sum of doubles
 * itself depended on the order of the rows (scorePage sums in the database's order).
 * Returns, per start, the pages with at least one active user (highest score first, then most
 * users, then page) and the overall score.
 */
export function spanScores(input: {
  lastSeen: readonly PageLastSeen[];
  confidence: readonly SegmentConfidence[];
  lastFires: readonly LastFire[];
  weight: (type: string) => number;
  starts: readonly number[];
}): Map<number, SpanScore> {
  const { weight } = input;
  // A weight of 0 switches a type off: its signals neither weigh nor make a user affected.
  const counted = (row: { type: string }) => weight(row.type) > 0;
  const seen = [...input.lastSeen].sort((a, b) => b.last - a.last);
  // Per page and user, their latest counted signal: they are affected in the windows starting at or before it.
  const affectedUntil = new Map<string, PageLastSeen>();
  const latestOfType = new Map<string, number>();
  for (const r of input.lastFires.filter(counted)) {
    const key = `${r.page}\u0000${r.user}`;
    if ((affectedUntil.get(key)?.last ?? -Infinity) < r.last) affectedUntil.set(key, { page: r.page, user: r.user, last: r.last });
    const typeKey = `${r.page}\u0000${r.type}`;
    latestOfType.set(typeKey, Math.max(latestOfType.get(typeKey) ?? -Infinity, r.last));
  }
  const affected = [...affectedUntil.values()].sort((a, b) => b.last - a.last);
  const segments = input.confidence.filter(counted).sort((a, b) => b.start - a.start);
  const pages = new Map<string, { active: number; affected: number; units: Map<string, bigint>; score: number; dirty: boolean }>();
  const pageOf = (page: string) => {
    let state = pages.get(page);
    if (!state) pages.set(page, (state = { active: 0, affected: 0, units: new Map(), score: 0, dirty: true }));
    state.dirty = true;
    return state;
  };
  const out = new Map<number, SpanScore>();
  let s = 0;
  let a = 0;
  let g = 0;
  for (const start of [...new Set(input.starts)].sort((x, y) => y - x)) {
    for (; s < seen.length && seen[s].last >= start; s++) pageOf(seen[s].page).active++;
    for (; a < affected.length && affected[a].last >= start; a++) pageOf(affected[a].page).affected++;
    for (; g < segments.length && segments[g].start >= start; g++) {
      const { page, type, units } = segments[g];
      const state = pageOf(page);
      state.units.set(type, (state.units.get(type) ?? 0n) + units);
    }
    const scored: SpanScore['pages'] = [];
    for (const [page, state] of pages) {
      if (state.active === 0) continue;
      if (state.dirty) {
        const latest = (type: string) => latestOfType.get(`${page}\u0000${type}`) ?? -Infinity;
        const types = [...state.units.keys()].sort((x, y) => latest(y) - latest(x) || x.localeCompare(y));
        let total = 0;
        for (const type of types) total += weight(type) * confidenceOfUnits(state.units.get(type)!);
        state.score = calibratedScore(rawScore(total, state.active, state.affected));
        state.dirty = false;
      }
      scored.push({ page, score: state.score, active_users: state.active });
    }
    scored.sort((x, y) => y.score - x.score || y.active_users - x.active_users || x.page.localeCompare(y.page));
    out.set(start, { overall: overallScore(scored.map((p) => ({ score: p.score, activeUsers: p.active_users }))), pages: scored });
  }
  return out;
}
