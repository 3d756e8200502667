// The `mcp` alert channel has no push: an alert whose rule names it reaches an assistant as an
// MCP resource (listed with the open issues) and flagged in the site context. Channels are
// stored as a JSON array of names from a closed list, so a match on the quoted name is exact.
import type { ServiceContext } from '../../domain/context.ts';
import { alertsWithRuleName, toAlertRecord } from '../../domain/records/alert.ts';
import { ACTIVE_ALERT_STATUSES } from '../../domain/statuses.ts';
import { resolveSite } from '../../domain/tenancy.ts';

const MCP_CHANNEL_MATCH = '%"mcp"%';

/** The site's active alerts whose rule names the mcp channel, most recently fired first. */
export async function assistantAlerts({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; limit: number } }) {
  const site = await resolveSite(ctx, input.site_id);
  // The channels test drops alerts without a rule (their rule columns are null).
  const rows = await alertsWithRuleName(ctx.db)
    .where('alerts.site_id', '=', site.id).where('alerts.status', 'in', ACTIVE_ALERT_STATUSES)
    .where('alert_rules.channels', 'like', MCP_CHANNEL_MATCH)
    .orderBy('alerts.fired_at', 'desc').orderBy('alerts.id', 'desc').limit(input.limit).execute();
  return rows.map(toAlertRecord);
}
