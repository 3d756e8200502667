// The issue routes' inputs and answers; the services (and the MCP tools) take and return the
// same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ISSUE_STATUSES, SETTABLE_ISSUE_STATUSES, SEVERITIES } from '../../domain/statuses.ts';
import { PagingQuery, SiteIdParam } from '../../domain/schema-parts.ts';
import { IssueRecord } from '../../domain/records/issue.ts';

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), { description });

export const ListIssuesQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  status: Type.Optional(literals(ISSUE_STATUSES, `Only issues in this status: ${ISSUE_STATUSES.join(', ')} (default: all)`)),
  ...PagingQuery,
});

export const UpdateIssueBody = Type.Object({
  status: Type.Optional(literals(SETTABLE_ISSUE_STATUSES, `The new status: ${SETTABLE_ISSUE_STATUSES.join(', ')} (regressed is set by the engine only)`)),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, description: 'A note for the issue\'s activity (1 to 5000 characters)' })),
  assigned_to: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 254 }), Type.Null()], { description: 'Who works on it (e.g. an email, up to 254 characters); null unassigns' })),
  severity: Type.Optional(Type.Union([Type.Union(SEVERITIES.map((v) => Type.Literal(v))), Type.Null()], { description: `Set the severity by hand: ${SEVERITIES.join(', ')}; null returns to the computed one` })),
}, { additionalProperties: false, minProperties: 1, examples: [{ status: 'triaged', note: 'Reproduced on Safari; fix scheduled', assigned_to: 'dana@shop.example' }] });
export type UpdateIssueBody = Static<typeof UpdateIssueBody>;

export const IssueParams = Type.Object({ issue_id: Type.String({ description: 'The issue id (a UUID)' }) });
export const SiteQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const IssueList = Type.Object({ issues: Type.Array(IssueRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });

export const IssueDetail = Type.Intersect([IssueRecord, Type.Object({
  evidence: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  linked_sessions: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  verifications: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  deploy_correlation: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  activity: Type.Array(Type.Record(Type.String(), Type.Unknown())),
})]);
