// The issue routes' inputs and answers; the services (and the MCP tools) take and return the
// same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ISSUE_ACTIVITY_KINDS, ISSUE_STATUSES, OPEN_ISSUE_STATUSES, SETTABLE_ISSUE_STATUSES, SEVERITIES } from '../../domain/statuses.ts';
import { IsoTime, IssueStatusEnum, Nullable, NullableIsoTime, OneOf, PagingQuery, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';
import { VERDICTS } from '../../pipeline/issues.ts';
import { IssueRecord } from '../../domain/records/issue.ts';

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), { description });

/** How a list of issues can be ordered; `priority` is the order every face uses (domain/priority.ts). */
export const ISSUE_SORTS = ['priority', 'severity', 'users', 'revenue', 'last_seen'] as const;

export const ListIssuesQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  status: Type.Optional(literals(ISSUE_STATUSES, `Only issues in this status: ${ISSUE_STATUSES.join(', ')} (default: all)`)),
  attention: Type.Optional(Type.Boolean({ description: `true: only issues needing attention (${OPEN_ISSUE_STATUSES.join(', ')}); false: only the others (default: all)` })),
  severity: Type.Optional(literals(SEVERITIES, `Only issues of this (effective) severity: ${SEVERITIES.join(', ')}`)),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Only issues on this page path, e.g. /checkout (normalized as ingest stores pages)' })),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'Only issues of this signal type, e.g. rage_click' })),
  assigned_to: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Only issues assigned to this person, exactly as set (e.g. an email)' })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only issues whose title, element label, selector or page contains this text (case-insensitive)' })),
  first_seen_from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Only issues first seen at or after this ISO 8601 instant' })),
  first_seen_to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Only issues first seen before this ISO 8601 instant (after first_seen_from)' })),
  last_seen_from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Only issues last seen at or after this ISO 8601 instant' })),
  last_seen_to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Only issues last seen before this ISO 8601 instant (after last_seen_from)' })),
  sort: Type.Optional(literals(ISSUE_SORTS, 'priority (default): issues needing attention first, then highest priority, regressed first at equal priority, then most recently seen; '
    + 'severity: most severe first; users: most users in 7 days first; revenue: most revenue at risk first; last_seen: most recently seen first (each then by priority)')),
  ...PagingQuery,
});
export type ListIssuesQuery = Static<typeof ListIssuesQuery>;

export const UpdateIssueBody = Type.Object({
  status: Type.Optional(literals(SETTABLE_ISSUE_STATUSES, `The new status: ${SETTABLE_ISSUE_STATUSES.join(', ')} (regressed is set by the engine only)`)),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, description: 'A note for the issue\'s activity (1 to 5000 characters)' })),
  assigned_to: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 254 }), Type.Null()], { description: 'Who works on it (e.g. an email, up to 254 characters); null unassigns' })),
  severity: Type.Optional(Type.Union([Type.Union(SEVERITIES.map((v) => Type.Literal(v))), Type.Null()], { description: `Set the severity by hand: ${SEVERITIES.join(', ')}; null returns to the computed one` })),
}, { additionalProperties: false, minProperties: 1, examples: [{ status: 'triaged', note: 'Reproduced on Safari; fix scheduled', assigned_to: 'dana@shop.example' }] });
export type UpdateIssueBody = Static<typeof UpdateIssueBody>;

export const IssueParams = Type.Object({ issue_id: Type.String({ description: 'The issue id (a UUID)' }) });
export const SiteQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

/** Days in an issue row's daily_counts: two weeks, for a sparkline. */
export const DAILY_COUNT_DAYS = 14;

/** An issue as the list shows it: the record plus its daily signal counts over two weeks. */
export const IssueListRow = Type.Composite([IssueRecord, Type.Object({
  daily_counts: Type.Array(Type.Integer(), { minItems: DAILY_COUNT_DAYS, maxItems: DAILY_COUNT_DAYS, description: `The issue's signals (its type on its element and page) per UTC day, ${DAILY_COUNT_DAYS} days, oldest first, the last being today up to window_to` }),
  window_from: Type.String({ format: 'date-time', description: 'Start of daily_counts\' window: midnight UTC 13 days before today' }),
  window_to: Type.String({ format: 'date-time', description: 'End of daily_counts\' window: the time of the answer' }),
})]);

export const IssueList = Type.Object({ issues: Type.Array(IssueListRow), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });

/** A signal that made the issue (the latest 20); label, confidence and position are null when the signal row is gone. */
const Evidence = Type.Object({
  signal_id: Uuid, session_id: Type.String(), occurred_at: IsoTime, label: Nullable(Type.String()),
  confidence: Nullable(Type.Number()), rx: Nullable(Type.Number()), ry: Nullable(Type.Number()),
});
const LinkedSession = Type.Object({
  session_id: Type.String(), started_at: IsoTime, ended_at: IsoTime, entry_page: Nullable(Type.String()),
  device_type: Nullable(Type.String()), converted: Type.Boolean(),
});
const Verification = Type.Object({
  id: Uuid, deploy_id: Nullable(Uuid), deploy_version: Nullable(Type.String()), result: OneOf(VERDICTS, 'The verdict on the fix so far'),
  before_count: Type.Number(), before_rate: Type.Number(), after_count: Type.Number(), after_rate: Nullable(Type.Number()),
  active_users_after: Type.Integer(), started_at: IsoTime, decided_at: NullableIsoTime, created_at: IsoTime,
});
const DeployCorrelation = Type.Object({
  deploy_id: Uuid, version: Type.String(), environment: Type.String(), deployed_at: IsoTime, delta: Nullable(Type.Number()),
  relation: Type.String(),
}, { description: 'The deploy in the 48 hours before the issue was first seen, if any' });
const Activity = Type.Object({
  id: Uuid, kind: OneOf(ISSUE_ACTIVITY_KINDS), actor: Nullable(Type.String()), message: Nullable(Type.String()),
  from_status: Nullable(IssueStatusEnum), to_status: Nullable(IssueStatusEnum), created_at: IsoTime,
});

export const IssueDetail = Type.Intersect([IssueRecord, Type.Object({
  evidence: Type.Array(Evidence),
  linked_sessions: Type.Array(LinkedSession),
  verifications: Type.Array(Verification),
  deploy_correlation: Nullable(DeployCorrelation),
  activity: Type.Array(Activity, { description: 'Newest first, the latest 100' }),
})]);
