// POST /v1/manage/issues/{issue_id}/ticket: push an issue to Linear or GitHub as a ticket and
// keep the tracker's id and URL on the issue.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { postJson } from '../../delivery/http-post.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { integrationConfig } from '../integrations/routes.ts';
import { rowInTenant } from '../../domain/tenancy.ts';

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

export async function ticketRoutes(app: App) {
  const { store, clock, secrets, targets, config } = app.services;

  app.post('/manage/issues/:issue_id/ticket', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' }, docs: { errors: ['conflict', 'upstream_error'] } },
    schema: {
      tags: ['issues'], summary: 'Create a Linear or GitHub ticket for an issue',
      params: Type.Object({ issue_id: Type.String() }),
      body: Type.Object({ provider: Type.Optional(Type.Union([Type.Literal('linear'), Type.Literal('github')])) }, { additionalProperties: false }),
      response: { 201: Envelope(Type.Object({ issue_id: Type.String(), provider: Type.String(), ticket_id: Type.String(), url: Type.String() })) },
    },
  }, async (request, reply) => {
    const auth = request.auth!;
    const issue = await rowInTenant({ db: store.db, auth }, 'ux_issues', request.params.issue_id, 'Issue');
    const siteId = issue.site_id;
    if (issue.ticket_id) throw new AppError('conflict', `This issue already has a ${issue.ticket_provider} ticket: ${issue.ticket_url}`);
    const wanted = request.body.provider as 'linear' | 'github' | undefined;
    const provider = wanted ?? ((await integrationConfig(store.db, secrets, siteId, 'linear')) ? 'linear' : 'github');
    const integration = await integrationConfig(store.db, secrets, siteId, provider);
    if (!integration) throw new AppError('invalid_input', `Connect ${provider} first (POST /v1/manage/integrations)`, { field: 'provider', reason: 'no integration' });
    const body = ticketBody(issue, config.publicUrl, siteId);
    let ticket: { id: string; url: string };
    if (provider === 'linear') {
      const res = await postJson(config.providers.linearApi, JSON.stringify({ query: LINEAR_CREATE, variables: { input: { teamId: integration.team_id, title: issue.title, description: body } } }), { authorization: integration.api_key }, targets);
      const created = res.ok ? (JSON.parse(res.body || '{}') as { data?: { issueCreate?: { success: boolean; issue?: { identifier: string; url: string } } } }).data?.issueCreate : undefined;
      if (!created?.success || !created.issue) throw new AppError('upstream_error', `Linear did not create the ticket (${res.error ?? 'no issue in the answer'})`);
      ticket = { id: created.issue.identifier, url: created.issue.url };
    } else {
      const res = await postJson(`${config.providers.githubApi}/repos/${integration.repo}/issues`, JSON.stringify({ title: issue.title, body }), { authorization: `Bearer ${integration.token}`, accept: 'application/vnd.github+json' }, targets);
      const created = res.ok ? (JSON.parse(res.body || '{}') as { number?: number; html_url?: string }) : {};
      if (!created.number || !created.html_url) throw new AppError('upstream_error', `GitHub did not create the ticket (${res.error ?? 'no issue in the answer'})`);
      ticket = { id: String(created.number), url: created.html_url };
    }
    const now = clock.now();
    await store.db.transaction().execute(async (trx) => {
      await trx.updateTable('ux_issues').set({ ticket_provider: provider, ticket_id: ticket.id, ticket_url: ticket.url, updated_at: now }).where('id', '=', issue.id).execute();
      await recordAudit(trx, auth, { action: 'issue.ticket_created', targetType: 'issue', targetId: issue.id, siteId, details: { provider, ticket_id: ticket.id } }, now);
    });
    reply.code(201);
    return ok({ issue_id: issue.id, provider, ticket_id: ticket.id, url: ticket.url });
  });
}
