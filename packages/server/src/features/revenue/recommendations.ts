// What to fix first: the site's issues needing attention in the priority order every face uses
// (domain/priority.ts), each with a concrete recommendation and its revenue at risk, both as
// the latest pipeline cycle stored them on the issue.
import type { Kysely } from 'kysely';
import { orderByPriority } from '../../domain/priority.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { revenueBasis } from '../../pipeline/revenue.ts';
import type { Database } from '../../store/tables.ts';

export async function fixList(db: Kysely<Database>, siteId: string, now: number, limit: number) {
  // Only the columns a recommendation uses: a busy site has thousands of open issues, and their
  // whole rows took five times as long to read at 10M signals.
  const [basis, issues] = await Promise.all([
    revenueBasis(db, siteId, now),
    orderByPriority(db.selectFrom('ux_issues')
      .select(['id', 'title', 'page', 'element_selector', 'type', 'severity', 'status', 'user_count', 'revenue_at_risk_cents', 'priority', 'priority_reason'])
      .where('site_id', '=', siteId).where('status', 'in', OPEN_ISSUE_STATUSES)).limit(limit).execute(),
  ]);
  return {
    currency: basis.currency,
    recommendations: issues.map((issue) => ({
      issue_id: issue.id, title: issue.title, page: issue.page, element_selector: issue.element_selector, type: issue.type,
      severity: issue.severity, status: issue.status, affected_users: issue.user_count,
      monthly_revenue_at_risk_cents: issue.revenue_at_risk_cents,
      priority: issue.priority, priority_reason: issue.priority_reason,
      recommendation: recommendationFor(issue.type),
      issue_url: `/v1/query/issues/${issue.id}`,
    })),
  };
}
