// The site's issues needing attention (open, triaged, in_progress, regressed) by priority: what
// an assistant lists as resources and completes ids from.
import type { ServiceContext } from '../../domain/context.ts';
import { toIssueRecord } from '../../domain/records/issue.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { orderByPriority } from '../../domain/priority.ts';

export async function openIssues({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; limit: number } }) {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await orderByPriority(ctx.db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES))
    .limit(input.limit).execute();
  return rows.map(toIssueRecord);
}
