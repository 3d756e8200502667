// Pure: when each of the nine alert triggers fires (DOMAIN.md section 5), and with what
// severity. Loading the context and recording alerts is alert-step.ts.
import type { TriggerType } from '../domain/alert-triggers.ts';
import { formatMoney } from '../domain/money.ts';
import type { AlertSeverity } from '../domain/statuses.ts';
import { BASELINE_MS } from './scoring.ts';
import { DAY_MS } from '../domain/time.ts';

export interface HistoryPoint { at: number; raw: number; score: number }

export interface PageContext {
  page: string;
  cycleAt: number;
  score: number;
  raw: number;
  /** The page's score in the previous cycle; null for a page never scored before. */
  previousScore: number | null;
  firstSeenAt: number;
  /** Raw scores of the trailing 7 days, before this cycle. */
  history: readonly HistoryPoint[];
  baselineMature: boolean;
  /** The largest delta of this page in deploys refreshed this cycle, if any. */
  deployDelta: number | null;
  /** Per element: distinct signal types and combined count in the scoring window. */
  elements: readonly { element: string; types: number; count: number }[];
}

export interface SiteContext {
  /** Monthly revenue at risk in currency units, and the value the rule saw last cycle. */
  revenueAtRisk: number | null;
  /** The site's revenue currency (ISO 4217), for the message. */
  currency?: string;
  previousRevenueAtRisk: number | null;
  /** Conversions in the window, and the same hours' average over the previous 7 days. */
  conversions: number | null;
  expectedConversions: number | null;
}

export interface RuleLike { trigger_type: TriggerType; threshold: number; config: Record<string, unknown> }

export interface Firing { conditionValue: number; message: string }

/** Standard normal cumulative probability (Abramowitz and Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - (((((1.061405429 * t - 1.453152014) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/** mean + (hour mean - mean) + (weekday mean - mean), hours and weekdays in UTC. */
export function timeAdjustedBaseline(history: readonly HistoryPoint[], at: number) {
  const raws = history.map((h) => h.raw);
  const m = mean(raws);
  const sd = raws.length > 1 ? Math.sqrt(raws.reduce((a, r) => a + (r - m) ** 2, 0) / (raws.length - 1)) : 0;
  const hour = new Date(at).getUTCHours();
  const day = new Date(at).getUTCDay();
  const sameHour = history.filter((h) => new Date(h.at).getUTCHours() === hour).map((h) => h.raw);
  const sameDay = history.filter((h) => new Date(h.at).getUTCDay() === day).map((h) => h.raw);
  const hourMean = sameHour.length ? mean(sameHour) : m;
  const dayMean = sameDay.length ? mean(sameDay) : m;
  return { mean: m + (hourMean - m) + (dayMean - m), sd };
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const round1 = (v: number) => Math.round(v * 10) / 10;

export function evaluatePage(rule: RuleLike, ctx: PageContext): Firing | null {
  const t = rule.threshold;
  switch (rule.trigger_type) {
    case 'spike': {
      // Scores carry one decimal: compare rises at that precision (16.4 - 6.4 is 10, not 9.999...).
      const rise = ctx.previousScore === null ? null : round1(ctx.score - ctx.previousScore);
      const deploy = ctx.deployDelta === null ? null : round1(ctx.deployDelta);
      const best = Math.max(rise ?? -Infinity, deploy ?? -Infinity);
      if (best < t) return null;
      return { conditionValue: round2(best), message: rise !== null && rise >= t ? `Score rose ${round2(rise)} points since the previous cycle (to ${ctx.score})` : `A deploy raised the score by ${deploy} points` };
    }
    case 'anomaly': {
      if (!ctx.baselineMature) return null;
      const base = timeAdjustedBaseline(ctx.history, ctx.cycleAt);
      const p = normalCdf((ctx.raw - base.mean) / Math.max(base.sd, 1)) * 100;
      return p >= t ? { conditionValue: round2(p), message: `Raw score ${ctx.raw} is unusually high for this hour and weekday (${round2(p)} % confidence)` } : null;
    }
    case 'new_page': {
      const isNew = ctx.firstSeenAt > ctx.cycleAt - BASELINE_MS && !ctx.baselineMature;
      return isNew && ctx.score >= t ? { conditionValue: ctx.score, message: `New page scores ${ctx.score}` } : null;
    }
    case 'trend': {
      const increase = typeof rule.config.increase_percent === 'number' ? rule.config.increase_percent : 30;
      const recent = ctx.history.filter((h) => h.at >= ctx.cycleAt - DAY_MS);
      if (recent.length < 7 || ctx.score < t) return null;
      const base = mean(ctx.history.map((h) => h.raw));
      const recentMean = mean(recent.map((h) => h.raw));
      if (recentMean < base * (1 + increase / 100) || recentMean <= 0) return null;
      const pct = base > 0 ? ((recentMean - base) / base) * 100 : 100;
      return { conditionValue: ctx.score, message: `Score ${ctx.score}: the last 24 hours average ${round2(pct)} % above the 7-day baseline` };
    }
    case 'co_occurrence': {
      const worst = ctx.elements.filter((e) => e.types >= 2).sort((a, b) => b.count - a.count)[0];
      return worst && worst.count >= t ? { conditionValue: worst.count, message: `${worst.element} shows ${worst.types} kinds of friction (${worst.count} signals)` } : null;
    }
    case 'positive':
      return ctx.previousScore !== null && ctx.previousScore >= t && ctx.score < t
        ? { conditionValue: ctx.score, message: `Score fell below ${t} (from ${ctx.previousScore} to ${ctx.score})` } : null;
    case 'budget':
      // A page with no previous score counts as below every threshold.
      return (ctx.previousScore === null || ctx.previousScore <= t) && ctx.score > t
        ? { conditionValue: ctx.score, message: `Score ${ctx.score} went over the budget target ${t}` } : null;
    default:
      return null;
  }
}

export function evaluateSite(rule: RuleLike, ctx: SiteContext): Firing | null {
  const t = rule.threshold;
  if (rule.trigger_type === 'revenue_threshold') {
    if (ctx.revenueAtRisk === null) return null;
    const crossed = ctx.revenueAtRisk > t && (ctx.previousRevenueAtRisk === null || ctx.previousRevenueAtRisk <= t);
    const money = (units: number) => formatMoney(Math.round(units * 100), ctx.currency ?? 'USD');
    return crossed ? { conditionValue: ctx.revenueAtRisk, message: `Monthly revenue at risk is ${money(ctx.revenueAtRisk)}, over ${money(t)}` } : null;
  }
  if (rule.trigger_type === 'stalled_signups') {
    const minExpected = typeof rule.config.min_expected === 'number' ? rule.config.min_expected : 10;
    if (ctx.conversions === null || ctx.expectedConversions === null || ctx.expectedConversions < minExpected) return null;
    const pct = (ctx.conversions / ctx.expectedConversions) * 100;
    return pct < t ? { conditionValue: round2(pct), message: `Conversions are at ${round2(pct)} % of usual (${ctx.conversions} against ${round2(ctx.expectedConversions)} expected)` } : null;
  }
  return null;
}

export const SITE_TRIGGERS: readonly TriggerType[] = ['revenue_threshold', 'stalled_signups'];

/** critical at score >= 81 or a condition at twice the threshold; high at score >= 61. */
export function alertSeverity(score: number | null, conditionValue: number, threshold: number): AlertSeverity {
  if ((score !== null && score >= 81) || (threshold > 0 && conditionValue >= 2 * threshold)) return 'critical';
  if (score !== null && score >= 61) return 'high';
  return 'warning';
}
