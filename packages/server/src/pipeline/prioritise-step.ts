// Step 4 of a cycle, after verification and before alerts: refresh every issue's priority
// inputs as of T and the priority they give (domain/priority.ts). Loads users per issue over
// 7 days (one grouped read of the signals), the site's signal weights and the revenue at risk
// (only when the site tracks conversions); computes; writes the rows that changed in one
// transaction. Derived data: no event, no activity, updated_at untouched.
import { sql, type Kysely } from 'kysely';
import type { Database, UxIssue } from '../store/tables.ts';
import { issuePriority } from '../domain/priority.ts';
import { weightResolver } from '../domain/signals.ts';
import { loadSignalWeights } from '../domain/site-config.ts';
import { DAY_MS } from '../domain/time.ts';
import { revenueAtRisk } from './revenue.ts';

export const PRIORITY_USERS_WINDOW_MS = 7 * DAY_MS;

export interface PrioritiseStepResult { updated: number }

const keyOf = (page: string, type: string, element: string) => `${page}\u0000${type}\u0000${element}`;

/** Distinct users (visitor, else session) per page + signal type + element in [from, to). */
async function usersPerGroup(db: Kysely<Database>, siteId: string, from: number, to: number): Promise<Map<string, number>> {
  const rows = await db.selectFrom('signals')
    .select(['page', 'signal_type', 'element', sql<number>`count(distinct coalesce(visitor_id, sid))`.as('n')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to)
    .groupBy(['page', 'signal_type', 'element']).execute();
  return new Map(rows.map((r) => [keyOf(r.page, r.signal_type, r.element), Number(r.n)]));
}

export async function prioritiseStep(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<PrioritiseStepResult> {
  const issues = await db.selectFrom('ux_issues')
    .select(['id', 'page', 'type', 'element_selector', 'severity', 'users_7d', 'signal_weight', 'revenue_at_risk_cents', 'priority', 'priority_reason'])
    .where('site_id', '=', siteId).execute();
  if (issues.length === 0) return { updated: 0 };
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const users = await usersPerGroup(db, siteId, cycleAt - PRIORITY_USERS_WINDOW_MS, cycleAt);
  // Estimated for the issues needing attention; without conversions it returns at once.
  const revenue = await revenueAtRisk(db, siteId, cycleAt);
  const cents = new Map(revenue.issues.map((r) => [r.issue_id, r.monthly_revenue_at_risk_cents]));
  const basis = { revenueTracked: revenue.tracking, currency: revenue.currency };

  const changed: { id: string; severity: string; set: ReturnType<typeof issuePriority> & Pick<UxIssue, 'users_7d' | 'signal_weight' | 'revenue_at_risk_cents'> }[] = [];
  for (const issue of issues) {
    const inputs = {
      users_7d: users.get(keyOf(issue.page, issue.type, issue.element_selector)) ?? 0,
      signal_weight: weight(issue.type),
      revenue_at_risk_cents: revenue.tracking ? cents.get(issue.id) ?? null : null,
    };
    const next = { ...inputs, ...issuePriority({ ...issue, ...inputs }, basis) };
    const same = (Object.keys(next) as (keyof typeof next)[]).every((k) => issue[k] === next[k]);
    if (!same) changed.push({ id: issue.id, severity: issue.severity, set: next });
  }
  if (changed.length) {
    await db.transaction().execute(async (trx) => {
      // Only from the severity the step read: a severity set by hand meanwhile recomputed the row itself.
      for (const { id, severity, set } of changed) {
        await trx.updateTable('ux_issues').set(set).where('id', '=', id).where('severity', '=', severity).execute();
      }
    });
  }
  return { updated: changed.length };
}
