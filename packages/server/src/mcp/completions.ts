// Completion of arguments: ids for the resource templates, and the prompts' page, session and
// deploy arguments, from what the site actually has. A caller who cannot read the site (an
// org-level credential without a site) gets no suggestions rather than an error.
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../domain/errors.ts';
import { listAlerts } from '../features/alerts/alert-list.ts';
import { listDeploys } from '../features/deploys/service.ts';
import { openIssues } from '../features/issues/open-issues.ts';
import { knownPages } from '../features/pages/known-pages.ts';
import { listFunnels } from '../features/funnels/service.ts';
import { recentSessionIds } from '../features/sessions/recent-sessions.ts';
import { siteOf, type McpSession } from './session.ts';

const MAX_VALUES = 100;

type Source = (session: McpSession, siteId: string | undefined, value: string) => Promise<string[]>;

const startingWith = (values: string[], value: string) => values.filter((v) => v.toLowerCase().startsWith(value.toLowerCase()));

const issueIds: Source = async (s, site_id, value) =>
  startingWith((await openIssues({ ctx: s.ctx, input: { site_id, limit: MAX_VALUES } })).map((i) => i.id), value);
const sessionIds: Source = (s, site_id, value) => recentSessionIds({ ctx: s.ctx, input: { site_id, prefix: value, limit: MAX_VALUES } });
const alertIds: Source = async (s, site_id, value) =>
  startingWith((await listAlerts({ ctx: s.ctx, input: { site_id, limit: MAX_VALUES } })).alerts.map((a) => a.id), value);
const deployIds: Source = async (s, site_id, value) =>
  startingWith((await listDeploys({ ctx: s.ctx, input: { site_id, limit: MAX_VALUES } })).deploys.map((d) => d.id), value);
const funnelIds: Source = async (s, site_id, value) =>
  startingWith((await listFunnels({ ctx: s.ctx, input: { site_id } })).funnels.map((f) => f.id), value);
const pagePaths: Source = async (s, site_id, value) => {
  const pages = await knownPages({ ctx: s.ctx, input: { site_id } });
  const needle = value.toLowerCase();
  // Pages that start with what was typed first, then those that merely contain it.
  return [...startingWith(pages, value), ...pages.filter((p) => !p.toLowerCase().startsWith(needle) && p.toLowerCase().includes(needle))];
};

/** `ref` (a prompt name or a resource template) and argument name -> where its values come from. */
const SOURCES: Record<string, Source> = {
  'mallard://issues/{issue_id}#issue_id': issueIds,
  'mallard://sessions/{session_id}#session_id': sessionIds,
  'mallard://alerts/{alert_id}#alert_id': alertIds,
  'mallard://funnels/{funnel_id}#funnel_id': funnelIds,
  'diagnose_page#page_path': pagePaths,
  'investigate_session#session_id': sessionIds,
  'post_deploy_check#deploy_id': deployIds,
};

export async function complete(session: McpSession, params: CompleteRequest['params']): Promise<CompleteResult> {
  const ref = params.ref.type === 'ref/prompt' ? params.ref.name : params.ref.uri;
  const source = SOURCES[`${ref}#${params.argument.name}`];
  const empty = { completion: { values: [], total: 0, hasMore: false } };
  if (!source) return empty;
  try {
    const values = await source(session, siteOf(session, params.context?.arguments?.site_id), params.argument.value);
    return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
  } catch (error) {
    if (error instanceof AppError) return empty;
    throw error;
  }
}
