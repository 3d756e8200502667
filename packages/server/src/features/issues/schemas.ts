import { Type, type Static } from '@sinclair/typebox';
import { ISSUE_STATUSES, SETTABLE_STATUSES, SEVERITIES } from '../../pipeline/issues.ts';
import { IsoTime, Nullable, NullableIsoTime, PagingQuery, Uuid } from '../../http/schemas.ts';

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

export const IssueRecord = Type.Object({
  id: Uuid,
  site_id: Uuid,
  title: Type.String(),
  page: Type.String(),
  element_selector: Type.String(),
  element_label: Nullable(Type.String()),
  type: Type.String({ description: 'The signal type (the field is type, not signal_type)' }),
  severity: Type.String(),
  severity_score: Type.Number({ description: 'Computed 0-100 score (see docs/issues.md)' }),
  severity_source: Type.String({ description: 'computed, or manual when set by PATCH' }),
  status: Type.String(),
  assigned_to: Nullable(Type.String()),
  signal_count: Type.Integer({ description: 'Signals since the issue was first seen' }),
  session_count: Type.Integer({ description: 'Sessions affected in the last 24 hours' }),
  user_count: Type.Integer({ description: 'Users affected in the last 24 hours' }),
  first_seen_at: IsoTime,
  last_seen_at: IsoTime,
  resolved_at: NullableIsoTime,
  status_changed_at: IsoTime,
  created_at: IsoTime,
  updated_at: IsoTime,
  ticket: Nullable(Type.Object({ provider: Type.String(), id: Type.String(), url: Type.String() })),
});
export type IssueRecord = Static<typeof IssueRecord>;

export const ListIssuesQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(literals(ISSUE_STATUSES)),
  ...PagingQuery,
});

export const UpdateIssueBody = Type.Object({
  status: Type.Optional(literals(SETTABLE_STATUSES)),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
  assigned_to: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 254 }))),
  severity: Type.Optional(Nullable(literals(SEVERITIES))),
}, { additionalProperties: false, minProperties: 1, examples: [{ status: 'triaged', note: 'Reproduced on Safari; fix scheduled', assigned_to: 'dana@shop.example' }] });
export type UpdateIssueBody = Static<typeof UpdateIssueBody>;

export const IssueParams = Type.Object({ issue_id: Type.String() });
export const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });
