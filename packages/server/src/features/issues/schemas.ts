import { Type, type Static } from '@sinclair/typebox';
import { ISSUE_STATUSES, SETTABLE_ISSUE_STATUSES, SEVERITIES } from '../../domain/statuses.ts';
import { Nullable, PagingQuery } from '../../domain/schema-parts.ts';

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));


export const ListIssuesQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(literals(ISSUE_STATUSES)),
  ...PagingQuery,
});

export const UpdateIssueBody = Type.Object({
  status: Type.Optional(literals(SETTABLE_ISSUE_STATUSES)),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
  assigned_to: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 254 }))),
  severity: Type.Optional(Nullable(literals(SEVERITIES))),
}, { additionalProperties: false, minProperties: 1, examples: [{ status: 'triaged', note: 'Reproduced on Safari; fix scheduled', assigned_to: 'dana@shop.example' }] });
export type UpdateIssueBody = Static<typeof UpdateIssueBody>;

export const IssueParams = Type.Object({ issue_id: Type.String() });
export const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });
