import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { IssueParams, ListIssuesQuery, SiteQuery, UpdateIssueBody } from './schemas.ts';
import { IssueRecord } from '../../domain/records/issue.ts';
import { issueDetail, listIssues, siteOfIssue, updateIssue } from './service.ts';

const Detail = Type.Intersect([IssueRecord, Type.Object({
  evidence: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  linked_sessions: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  verifications: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  deploy_correlation: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  activity: Type.Array(Type.Record(Type.String(), Type.Unknown())),
})]);

export async function issueRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/issues', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'UX issues, most severe first, then most recently seen', querystring: ListIssuesQuery,
      response: { 200: Envelope(Type.Object({ issues: Type.Array(IssueRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() })) },
    },
  }, async (request) => {
    const site = await resolveSite(store, request.auth!, request.query.site_id);
    return ok(await listIssues(store, site.id, request.query.status, request.query.offset ?? 0, request.query.limit ?? 50));
  });

  app.get('/query/issues/:issue_id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One issue with evidence, linked sessions, verification history, deploy correlation and activity',
      params: IssueParams, querystring: SiteQuery, response: { 200: Envelope(Detail) },
    },
  }, async (request) => {
    const site = await resolveSite(store, request.auth!, request.query.site_id);
    return ok(await issueDetail(store, site.id, request.params.issue_id));
  });

  app.patch('/manage/issues/:issue_id', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: {
      tags: ['issues'], summary: 'Triage an issue: status, note, assignee, severity (all optional)',
      params: IssueParams, querystring: SiteQuery, body: UpdateIssueBody, response: { 200: Envelope(IssueRecord) },
    },
  }, async (request) => {
    const siteId = await siteOfIssue(store, request.auth!, request.params.issue_id, request.query.site_id);
    return ok(await updateIssue(store, request.auth!, siteId, request.params.issue_id, request.body, clock.now()));
  });
}
