// The site's open issues (open, triaged, in_progress, regressed), most severe first: what an
// assistant lists as resources and completes ids from.
import type { ServiceContext } from '../../domain/context.ts';
import { toIssueRecord } from '../../domain/records/issue.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { SEVERITY_ORDER } from './service.ts';

export async function openIssues({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; limit: number } }) {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES)
    .orderBy(SEVERITY_ORDER).orderBy('last_seen_at', 'desc').orderBy('id').limit(input.limit).execute();
  return rows.map(toIssueRecord);
}
