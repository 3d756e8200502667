// Resources: the site context and the signal registry, and templates for one issue, one
// session, one alert and one saved funnel (listed too, by name). Listing names the issues needing attention (by priority) and the
// active alerts whose rule names the `mcp` channel: that listing (and the flag in
// get_site_context) is how the mcp channel reaches an assistant, since MCP has no push to a
// client that is not connected.
import type { ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { getSiteContext } from '../features/mcp-context/service.ts';
import { assistantAlerts } from '../features/mcp-context/assistant-alerts.ts';
import { signalWeights } from '../features/signals/signal-weights.ts';
import { issueDetail } from '../features/issues/service.ts';
import { openIssues } from '../features/issues/open-issues.ts';
import { sessionTimeline } from '../features/sessions/session-timeline.ts';
import { alertDetail } from '../features/alerts/alert-detail.ts';
import { listFunnels, savedFunnelReport } from '../features/funnels/service.ts';
import { AppError } from '../domain/errors.ts';
import { assertUuid } from '../domain/tenancy.ts';
import type { McpSession } from './session.ts';

const JSON_TYPE = 'application/json';
const LISTED_MAX = 100;

const STATIC = [
  { uri: 'mallard://context', name: 'context', title: 'Site context', description: 'The state of the site in one read: scores, worst pages, open issues, deploys, active alerts, what to fix first, revenue at risk (as get_site_context)', mimeType: JSON_TYPE },
  { uri: 'mallard://signals', name: 'signals', title: 'Signal types and weights', description: 'Every signal type with its tier and the weight this site scores it with (custom weights merged over the defaults)', mimeType: JSON_TYPE },
];

const TEMPLATES = [
  { uriTemplate: 'mallard://issues/{issue_id}', name: 'issue', title: 'One issue', description: 'An issue with its evidence, linked sessions, verifications and activity (as get_issue)', mimeType: JSON_TYPE },
  { uriTemplate: 'mallard://sessions/{session_id}', name: 'session', title: 'One session', description: 'A session with every event and its narrative (as get_session)', mimeType: JSON_TYPE },
  { uriTemplate: 'mallard://alerts/{alert_id}', name: 'alert', title: 'One alert', description: 'An alert with its incident timeline (as get_alert)', mimeType: JSON_TYPE },
  { uriTemplate: 'mallard://funnels/{funnel_id}', name: 'funnel', title: 'One saved funnel', description: 'A saved funnel run over the last 7 days: each step with its conversion, median time and friction (as get_funnel with funnel_id)', mimeType: JSON_TYPE },
];

export async function listResources(session: McpSession): Promise<ListResourcesResult> {
  const input = { site_id: session.siteId, limit: LISTED_MAX };
  const [issues, alerts, funnels] = await Promise.all([openIssues({ ctx: session.ctx, input }), assistantAlerts({ ctx: session.ctx, input }), listFunnels({ ctx: session.ctx, input })]);
  return {
    resources: [
      ...STATIC,
      ...issues.map((i) => ({ uri: `mallard://issues/${i.id}`, name: `issue ${i.id}`, title: `[${i.severity}] ${i.title}`, description: `Needs attention (${i.status}) on ${i.page}; priority ${i.priority} of 100: ${i.priority_reason}`, mimeType: JSON_TYPE })),
      ...alerts.map((a) => ({ uri: `mallard://alerts/${a.id}`, name: `alert ${a.id}`, title: `[${a.severity}] ${a.message}`, description: `Active alert (${a.status}) sent to the mcp channel by the rule ${a.rule_name ?? ''}`.trim(), mimeType: JSON_TYPE })),
      ...funnels.funnels.slice(0, LISTED_MAX).map((f) => ({ uri: `mallard://funnels/${f.id}`, name: `funnel ${f.id}`, title: `Funnel: ${f.name}`, description: `Saved funnel: ${f.steps.join(' -> ')} within ${f.window_minutes} min`, mimeType: JSON_TYPE })),
    ],
  };
}

export const listTemplates = (): ListResourceTemplatesResult => ({ resourceTemplates: TEMPLATES });

const ROUTES: { pattern: RegExp; read: (session: McpSession, id: string) => Promise<unknown> }[] = [
  { pattern: /^mallard:\/\/context$/, read: (s) => getSiteContext({ ctx: s.ctx, input: { site_id: s.siteId } }) },
  { pattern: /^mallard:\/\/signals$/, read: (s) => signalWeights({ ctx: s.ctx, input: { site_id: s.siteId } }) },
  { pattern: /^mallard:\/\/issues\/([^/]+)$/, read: (s, id) => issueDetail({ ctx: s.ctx, input: { issue_id: assertUuid(id, 'issue_id'), site_id: s.siteId } }) },
  { pattern: /^mallard:\/\/sessions\/([^/]+)$/, read: (s, id) => sessionTimeline({ ctx: s.ctx, input: { session_id: id, site_id: s.siteId } }) },
  { pattern: /^mallard:\/\/alerts\/([^/]+)$/, read: (s, id) => alertDetail({ ctx: s.ctx, input: { alert_id: assertUuid(id, 'alert_id'), site_id: s.siteId } }) },
  { pattern: /^mallard:\/\/funnels\/([^/]+)$/, read: (s, id) => savedFunnelReport({ ctx: s.ctx, input: { id: assertUuid(id, 'funnel_id') } }) },
];

/** The resource's JSON, or an AppError (not_found for an unknown URI, as for an unknown id). */
export async function readResource(session: McpSession, uri: string): Promise<ReadResourceResult> {
  for (const route of ROUTES) {
    const match = route.pattern.exec(uri);
    if (!match) continue;
    const data = await route.read(session, decoded(match[1] ?? ''));
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(data, null, 2) }] };
  }
  throw new AppError('not_found', `No resource ${uri}: the resources are mallard://context, mallard://signals and the templates ${TEMPLATES.map((t) => t.uriTemplate).join(', ')}`);
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError('invalid_input', 'The resource URI is not well formed', { field: 'uri', reason: 'bad percent-encoding' });
  }
}
