import type { App } from '../../http/app-types.ts';
import { Envelope, ok, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { IssueDetail, IssueList, IssueParams, ListIssuesQuery, SiteQuery, UpdateIssueBody } from './schemas.ts';
import { IssueRecord } from '../../domain/records/issue.ts';
import { issueDetail, listIssues, updateIssue } from './service.ts';

export async function issueRoutes(app: App) {
  app.get('/query/issues', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'UX issues, by priority by default (issues needing attention first, then highest priority); filter and sort', querystring: ListIssuesQuery,
      response: { 200: Envelope(IssueList) },
    },
  }, async (request, reply) => okOnce(reply, await listIssues({ ctx: contextOf(request), input: request.query })));

  app.get('/query/issues/:issue_id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One issue with evidence, linked sessions, verification history, deploy correlation and activity',
      params: IssueParams, querystring: SiteQuery, response: { 200: Envelope(IssueDetail) },
    },
  }, async (request, reply) => okOnce(reply, await issueDetail({ ctx: contextOf(request), input: { ...request.query, ...request.params } })));

  app.patch('/manage/issues/:issue_id', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: {
      tags: ['issues'], summary: 'Triage an issue: status, note, assignee, severity (all optional)',
      params: IssueParams, querystring: SiteQuery, body: UpdateIssueBody, response: { 200: Envelope(IssueRecord) },
    },
  }, async (request) => ok(await updateIssue({ ctx: contextOf(request), input: { ...request.body, ...request.query, ...request.params } })));
}
