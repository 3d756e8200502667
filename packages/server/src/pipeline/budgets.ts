import { DAY_MS } from '../domain/time.ts';
import { matchesPagePattern } from '../domain/page-pattern.ts';
// Pure: confusion budgets. Consumption is the share of the whole current period (UTC; weeks
// start on Sunday) that the page spent above its target, walking score history where each
// row holds until the next one (the last until now).
export const BUDGET_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
export const BUDGET_STATUSES = ['within', 'warning', 'exhausted'] as const;
export type BudgetStatus = (typeof BUDGET_STATUSES)[number];


export function periodBounds(period: BudgetPeriod, now: number): { start: number; end: number } {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'daily') return { start: midnight, end: midnight + DAY_MS };
  if (period === 'weekly') {
    const start = midnight - d.getUTCDay() * DAY_MS;
    return { start, end: start + 7 * DAY_MS };
  }
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

export function budgetStatus(percent: number): BudgetStatus {
  if (percent >= 100) return 'exhausted';
  if (percent >= 70) return 'warning';
  return 'within';
}

/**
 * @param history score rows sorted by time; include the last row before the period so the
 *   state at the period's start is known.
 */
export function budgetConsumption(history: readonly { at: number; score: number }[], target: number, period: BudgetPeriod, now: number) {
  const { start, end } = periodBounds(period, now);
  const until = Math.min(now, end);
  let above = 0;
  const days = new Set<number>();
  for (let i = 0; i < history.length; i++) {
    const from = Math.max(history[i].at, start);
    const to = Math.min(i + 1 < history.length ? history[i + 1].at : until, until);
    if (to <= from || history[i].score <= target) continue;
    above += to - from;
    for (let day = Math.floor(from / DAY_MS); day * DAY_MS < to; day++) days.add(day);
  }
  const percent = Math.min(100, Math.round((above / (end - start)) * 100));
  return {
    period, period_start: new Date(start).toISOString(), period_end: new Date(end).toISOString(),
    minutes_above: Math.round(above / 60_000), consumed_percent: percent, days_over: days.size, status: budgetStatus(percent),
  };
}

/** `/checkout` exact, `/checkout*` prefix, `*` or empty all pages (domain/page-pattern.ts). */
export function matchesPattern(pattern: string | null | undefined, page: string): boolean {
  if (!pattern) return true;
  return matchesPagePattern(pattern, page);
}
