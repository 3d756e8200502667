// What to fix first: the site's open issues by priority, each with a concrete recommendation
// and its share of the revenue at risk.
import type { Kysely } from 'kysely';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';
import type { Database } from '../../store/tables.ts';

/**
 * Priority 0-100: 60 % severity score, 25 % reach (users affected in 24 hours, 100+ counts
 * fully), 15 % revenue (its share of the site's revenue at risk).
 */
export function priorityOf(severityScore: number, users: number, revenueShare: number): number {
  return Math.round((0.6 * severityScore + 25 * Math.min(1, users / 100) + 15 * Math.min(1, revenueShare)) * 10) / 10;
}

export async function fixList(db: Kysely<Database>, siteId: string, now: number, limit: number) {
  const revenue = await revenueAtRisk(db, siteId, now);
  const byIssue = new Map(revenue.issues.map((r) => [r.issue_id, r]));
  // Only the columns a recommendation uses: a busy site has thousands of open issues, and their
  // whole rows (evidence breakdowns and all) took five times as long to read at 10M signals.
  const issues = await db.selectFrom('ux_issues')
    .select(['id', 'title', 'page', 'element_selector', 'type', 'severity', 'status', 'user_count', 'severity_score'])
    .where('site_id', '=', siteId).where('status', 'in', OPEN_ISSUE_STATUSES).execute();
  const total = revenue.total_monthly_revenue_at_risk_cents;
  const recommendations = issues.map((issue) => {
    const money = byIssue.get(issue.id)?.monthly_revenue_at_risk_cents ?? null;
    return {
      issue_id: issue.id, title: issue.title, page: issue.page, element_selector: issue.element_selector, type: issue.type,
      severity: issue.severity, status: issue.status, affected_users: issue.user_count,
      monthly_revenue_at_risk_cents: money,
      priority: priorityOf(issue.severity_score, issue.user_count, total > 0 && money ? money / total : 0),
      recommendation: recommendationFor(issue.type),
      issue_url: `/v1/query/issues/${issue.id}`,
    };
  }).sort((a, b) => b.priority - a.priority || a.title.localeCompare(b.title)).slice(0, limit);
  return { currency: revenue.currency, recommendations };
}
