// The budgets that cover a page: each budget rule matching it, with its consumption in the
// current period (score history from just before the period to now).
import type { Kysely } from 'kysely';
import { budgetConsumption, matchesPattern, type BudgetPeriod } from '../../pipeline/budgets.ts';
import type { Database } from '../../store/tables.ts';

export async function pageBudgets(db: Kysely<Database>, siteId: string, page: string, now: number) {
  const rules = await db.selectFrom('alert_rules').selectAll().where('site_id', '=', siteId).where('trigger_type', '=', 'budget').execute();
  const budgets = [];
  for (const rule of rules.filter((r) => matchesPattern(r.page_pattern, page))) {
    const period = ((JSON.parse(rule.config) as { period?: BudgetPeriod }).period ?? 'daily') as BudgetPeriod;
    const start = new Date(budgetConsumption([], 0, period, now).period_start).getTime();
    const history = db.selectFrom('score_history').select(['cycle_at', 'score']).where('site_id', '=', siteId).where('page', '=', page);
    const before = await history.where('cycle_at', '<', start).orderBy('cycle_at', 'desc').limit(1).execute();
    const within = await history.where('cycle_at', '>=', start).where('cycle_at', '<=', now).orderBy('cycle_at', 'asc').execute();
    const points = [...before, ...within].map((r) => ({ at: r.cycle_at, score: r.score }));
    budgets.push({ rule_id: rule.id, name: rule.name, page_pattern: rule.page_pattern, target: rule.threshold, enabled: rule.enabled === 1, ...budgetConsumption(points, rule.threshold, period, now) });
  }
  return budgets;
}
