// Step 4 of a cycle, after verification and before alerts: refresh every issue's priority
// inputs as of T and the priority they give (domain/priority.ts). Every cycle: the site's signal
// weights, whether it tracks conversions, and each issue's severity as the cluster step left it.
// At most hourly (and whenever an issue has never had them): users per issue over 7 days (one
// grouped read of the signals) and the revenue at risk (only when the site tracks conversions).
// Those read 7 and 30 days of history, about a second per cycle for a site with half a million
// signals in its last 7 days (BENCHMARKS.md, "pipeline"), so hourly keeps that to one cycle in
// four at the default interval; an hour-old count of 7 days of users is still the same order.
// Writes the rows that changed in one transaction. Derived data: no event, no activity,
// updated_at untouched.
import { sql, type Kysely } from 'kysely';
import type { Database, UxIssue } from '../store/tables.ts';
import { issuePriority } from '../domain/priority.ts';
import { weightResolver } from '../domain/signals.ts';
import { loadSignalWeights } from '../domain/site-config.ts';
import { DAY_MS, HOUR_MS } from '../domain/time.ts';
import { revenueAtRisk, revenueBasis } from './revenue.ts';

export const PRIORITY_USERS_WINDOW_MS = 7 * DAY_MS;
/** How old the 7-day users and the revenue estimate may get before a cycle reads them again. */
export const PRIORITY_INPUTS_REFRESH_MS = HOUR_MS;

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
    .select(['id', 'page', 'type', 'element_selector', 'severity', 'users_7d', 'signal_weight', 'revenue_at_risk_cents', 'priority', 'priority_reason', 'priority_inputs_at'])
    .where('site_id', '=', siteId).execute();
  if (issues.length === 0) return { updated: 0 };
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const refresh = issues.some((i) => i.priority_inputs_at === null || Math.abs(cycleAt - Number(i.priority_inputs_at)) >= PRIORITY_INPUTS_REFRESH_MS);
  let users: Map<string, number> | null = null;
  let cents: Map<string, number | null> | null = null;
  let basis;
  if (refresh) {
    users = await usersPerGroup(db, siteId, cycleAt - PRIORITY_USERS_WINDOW_MS, cycleAt);
    // Estimated for the issues needing attention; without conversions it returns at once.
    const revenue = await revenueAtRisk(db, siteId, cycleAt);
    cents = new Map(revenue.issues.map((r) => [r.issue_id, r.monthly_revenue_at_risk_cents]));
    basis = { revenueTracked: revenue.tracking, currency: revenue.currency };
  } else {
    basis = await revenueBasis(db, siteId, cycleAt);
  }

  const changed: { id: string; severity: string; set: ReturnType<typeof issuePriority> & Pick<UxIssue, 'users_7d' | 'signal_weight' | 'revenue_at_risk_cents'> }[] = [];
  for (const issue of issues) {
    const inputs = {
      users_7d: users ? users.get(keyOf(issue.page, issue.type, issue.element_selector)) ?? 0 : issue.users_7d,
      signal_weight: weight(issue.type),
      revenue_at_risk_cents: !basis.revenueTracked ? null : cents ? cents.get(issue.id) ?? null : issue.revenue_at_risk_cents,
    };
    const next = { ...inputs, ...issuePriority({ ...issue, ...inputs }, basis) };
    const same = (Object.keys(next) as (keyof typeof next)[]).every((k) => issue[k] === next[k]);
    if (!same) changed.push({ id: issue.id, severity: issue.severity, set: next });
  }
  if (changed.length || refresh) {
    await db.transaction().execute(async (trx) => {
      if (refresh) await trx.updateTable('ux_issues').set({ priority_inputs_at: cycleAt }).where('site_id', '=', siteId).execute();
      // Only from the severity the step read: a severity set by hand meanwhile recomputed the row itself.
      for (const { id, severity, set } of changed) {
        await trx.updateTable('ux_issues').set(set).where('id', '=', id).where('severity', '=', severity).execute();
      }
    });
  }
  return { updated: changed.length };
}
