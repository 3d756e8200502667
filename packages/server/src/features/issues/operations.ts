// The issue operations: the list, one issue in full, triage (the route's answer: the issue)
// and triage as an assistant calls it (the issue and what the call wrote).
import { Type } from '@sinclair/typebox';
import { IssueRecord } from '../../domain/records/issue.ts';
import { Nullable } from '../../domain/schema-parts.ts';
import { defineOperation, READ_ACCESS, WRITE_ACCESS } from '../../domain/operation.ts';
import { MINUTE_MS } from '../../domain/time.ts';
import { IssueDetail, IssueList, IssueParams, ListIssuesQuery, SiteQuery, UpdateIssueBody } from './schemas.ts';
import { applyIssueUpdate, issueDetail, listIssues, updateIssue } from './service.ts';

export const listIssuesOp = defineOperation({
  name: 'issues.list',
  summary: 'UX issues, by priority by default (issues needing attention first, then highest priority); filter and sort',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/issues', surface: 'query', tags: ['query'] },
  input: { query: ListIssuesQuery },
  output: IssueList,
  run: (ctx, input) => listIssues({ ctx, input }),
});

export const issueDetailOp = defineOperation({
  name: 'issues.get',
  summary: 'One issue with evidence, linked sessions, verification history, deploy correlation and activity',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/issues/:issue_id', surface: 'query', tags: ['query'] },
  input: { params: IssueParams, query: SiteQuery },
  output: IssueDetail,
  run: (ctx, input) => issueDetail({ ctx, input }),
});

export const updateIssueOp = defineOperation({
  name: 'issues.update',
  summary: 'Triage an issue: status, note, assignee, severity (all optional)',
  access: WRITE_ACCESS,
  http: { method: 'PATCH', path: '/manage/issues/:issue_id', surface: 'manage', tags: ['issues'] },
  input: { params: IssueParams, query: SiteQuery, body: UpdateIssueBody },
  output: IssueRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateIssue({ ctx, input }),
});

/** A retried triage within this time leaves its note once (same credential, issue and text). */
const NOTE_ONCE_WITHIN_MS = 10 * MINUTE_MS;

const Written = Type.Object({
  status: Type.Optional(Type.String()),
  assigned_to: Type.Optional(Nullable(Type.String())),
  severity: Type.Optional(Nullable(Type.String())),
  note: Type.Optional(Type.String()),
  note_repeated: Type.Boolean({ description: 'true: this credential left the same note on the issue within 10 minutes, so it was not added again' }),
}, { description: 'What this call wrote: the fields it was given, as stored' });
const TriagedIssue = Type.Composite([IssueRecord, Type.Object({ written: Written })]);

/** Triage as an assistant retries it: a repeated note is left once, and the answer says what was written (the MCP tool update_issue). */
export const triageIssueOp = defineOperation({
  name: 'issues.triage',
  summary: 'Triage an issue: status, note, assignee or severity; answers the issue and what this call wrote',
  access: WRITE_ACCESS,
  input: { params: IssueParams, query: SiteQuery, body: UpdateIssueBody },
  output: TriagedIssue,
  write: { idempotent: true },
  run: async (ctx, input) => {
    const { issue, note_repeated } = await applyIssueUpdate({ ctx, input, noteOnceWithinMs: NOTE_ONCE_WITHIN_MS });
    const written = {
      ...(input.status !== undefined ? { status: issue.status } : {}),
      ...(input.assigned_to !== undefined ? { assigned_to: issue.assigned_to } : {}),
      ...(input.severity !== undefined ? { severity: input.severity === null ? null : issue.severity } : {}),
      ...(input.note !== undefined ? { note: input.note } : {}),
      note_repeated,
    };
    return { ...issue, written };
  },
});

export const ISSUE_OPERATIONS = [listIssuesOp, issueDetailOp, updateIssueOp, triageIssueOp];
