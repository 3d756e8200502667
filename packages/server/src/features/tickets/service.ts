// Pushing an issue to Linear or GitHub as a ticket, and keeping the tracker's id and URL on
// the issue. The tracker is called first; only a ticket it created is recorded.
import { recordAudit } from '../../audit/record.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { Config } from '../../config.ts';
import { postJson } from '../../delivery/http-post.ts';
import type { TargetPolicy } from '../../delivery/targets.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { integrationConfig } from '../../domain/integrations.ts';
import { rowInTenant } from '../../domain/tenancy.ts';
import type { UxIssue } from '../../store/tables.ts';

const LINEAR_CREATE = 'mutation CreateIssue($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier url } } }';

export function ticketBody(issue: { title: string; page: string; element_selector: string; type: string; severity: string; signal_count: number; session_count: number; id: string }, publicUrl: string, siteId: string) {
  return [
    `Mallard found friction: **${issue.title}**.`,
    '',
    `- Page: \`${issue.page}\``,
    `- Element: \`${issue.element_selector || '(none)'}\``,
    `- Signal: ${issue.type}, severity ${issue.severity}`,
    `- ${issue.signal_count} signals; ${issue.session_count} sessions affected in the last 24 hours`,
    '',
    `Details: ${publicUrl}/v1/query/issues/${issue.id}?site_id=${siteId}`,
  ].join('\n');
}

type Tracker = 'linear' | 'github';
export interface TicketDeps { secrets: Secrets; policy: TargetPolicy; config: Pick<Config, 'publicUrl' | 'providers'> }

/** Creates the issue's ticket in the tracker (Linear when connected, else GitHub, unless named). */
export async function createTicket({ ctx, input, secrets, policy, config }: { ctx: ServiceContext; input: { issue_id: string; provider?: Tracker } } & TicketDeps) {
  const issue = await rowInTenant(ctx, 'ux_issues', input.issue_id, 'Issue');
  if (issue.ticket_id) throw new AppError('conflict', `This issue already has a ${issue.ticket_provider} ticket: ${issue.ticket_url}`);
  const provider = input.provider ?? ((await integrationConfig(ctx.db, secrets, issue.site_id, 'linear')) ? 'linear' : 'github');
  const ticket = provider === 'linear' ? await linearTicket(ctx, issue, { secrets, policy, config }) : await githubTicket(ctx, issue, { secrets, policy, config });
  const { now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('ux_issues').set({ ticket_provider: provider, ticket_id: ticket.id, ticket_url: ticket.url, updated_at: now }).where('id', '=', issue.id).execute();
    await recordAudit(trx, ctx, { action: 'issue.ticket_created', targetType: 'issue', targetId: issue.id, siteId: issue.site_id, details: { provider, ticket_id: ticket.id } });
  });
  return { issue_id: issue.id, provider, ticket_id: ticket.id, url: ticket.url };
}

const notConnected = (provider: Tracker) => new AppError('invalid_input', `Connect ${provider} first (POST /v1/manage/integrations)`, { field: 'provider', reason: 'no integration' });

async function linearTicket(ctx: ServiceContext, issue: UxIssue, { secrets, policy, config }: TicketDeps) {
  const integration = await integrationConfig(ctx.db, secrets, issue.site_id, 'linear');
  if (!integration) throw notConnected('linear');
  const description = ticketBody(issue, config.publicUrl, issue.site_id);
  const res = await postJson(config.providers.linearApi, JSON.stringify({ query: LINEAR_CREATE, variables: { input: { teamId: integration.team_id, title: issue.title, description } } }), { authorization: integration.api_key }, policy);
  const created = res.ok ? (JSON.parse(res.body || '{}') as { data?: { issueCreate?: { success: boolean; issue?: { identifier: string; url: string } } } }).data?.issueCreate : undefined;
  if (!created?.success || !created.issue) throw new AppError('upstream_error', `Linear did not create the ticket (${res.error ?? 'no issue in the answer'})`);
  return { id: created.issue.identifier, url: created.issue.url };
}

async function githubTicket(ctx: ServiceContext, issue: UxIssue, { secrets, policy, config }: TicketDeps) {
  const integration = await integrationConfig(ctx.db, secrets, issue.site_id, 'github');
  if (!integration) throw notConnected('github');
  const body = ticketBody(issue, config.publicUrl, issue.site_id);
  const res = await postJson(`${config.providers.githubApi}/repos/${integration.repo}/issues`, JSON.stringify({ title: issue.title, body }), { authorization: `Bearer ${integration.token}`, accept: 'application/vnd.github+json' }, policy);
  const created = res.ok ? (JSON.parse(res.body || '{}') as { number?: number; html_url?: string }) : {};
  if (!created.number || !created.html_url) throw new AppError('upstream_error', `GitHub did not create the ticket (${res.error ?? 'no issue in the answer'})`);
  return { id: String(created.number), url: created.html_url };
}
