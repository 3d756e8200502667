// The issue as the query API lists it; webhook events carry the same record.
import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { IsoTime, IssueStatusEnum, Nullable, NullableIsoTime, OneOf, SeverityEnum, Uuid } from '../schema-parts.ts';
import { iso, isoOrNull } from '../../clock.ts';
import type { UxIssue } from '../../store/tables.ts';

export const IssueRecord = Type.Object({
  id: Uuid,
  site_id: Uuid,
  title: Type.String(),
  page: Type.String(),
  element_selector: Type.String(),
  element_label: Nullable(Type.String()),
  type: Type.String({ description: 'The signal type (the field is type, not signal_type)' }),
  severity: SeverityEnum,
  severity_score: Type.Number({ description: 'Computed 0-100 score (see docs/issues.md)' }),
  severity_source: OneOf(['computed', 'manual'], 'computed, or manual when set by PATCH'),
  status: IssueStatusEnum,
  assigned_to: Nullable(Type.String()),
  signal_count: Type.Integer({ description: 'Signals since the issue was first seen' }),
  session_count: Type.Integer({ description: 'Sessions affected over the last 24 hours (to the latest pipeline cycle)' }),
  user_count: Type.Integer({ description: 'Users affected over the last 24 hours (to the latest pipeline cycle)' }),
  first_seen_at: IsoTime,
  last_seen_at: IsoTime,
  resolved_at: NullableIsoTime,
  status_changed_at: IsoTime,
  created_at: IsoTime,
  updated_at: IsoTime,
  ticket: Nullable(Type.Object({ provider: Type.String(), id: Type.String(), url: Type.String() })),
  users_7d: Type.Integer({ description: 'Users affected over the last 7 days (to the latest pipeline cycle): distinct visitors (else sessions) with this signal type on this element' }),
  revenue_at_risk_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Monthly revenue at risk in cents of the site\'s currency (as /query/revenue estimates it); null when the site tracks no conversions or the estimate has too few sessions' }),
  priority: Type.Number({ description: 'What to fix first, 0-100 (one decimal): users affected in 7 days, severity, signal weight and revenue at risk (docs/issues.md, "Priority")' }),
  priority_reason: Type.String({ description: 'The priority in words, e.g. "critical; 272 users in 7 days; $7,167/month at risk; rage click (weight 25)"' }),
});
export type IssueRecord = Static<typeof IssueRecord>;

export function toIssueRecord(i: UxIssue): IssueRecord {
  return {
    id: i.id, site_id: i.site_id, title: i.title, page: i.page, element_selector: i.element_selector,
    element_label: i.element_label, type: i.type, severity: i.severity, severity_score: i.severity_score,
    severity_source: i.severity_manual ? 'manual' : 'computed', status: i.status, assigned_to: i.assigned_to,
    signal_count: i.signal_count, session_count: i.session_count, user_count: i.user_count,
    first_seen_at: iso(i.first_seen_at), last_seen_at: iso(i.last_seen_at), resolved_at: isoOrNull(i.resolved_at),
    status_changed_at: iso(i.status_changed_at), created_at: iso(i.created_at), updated_at: iso(i.updated_at),
    ticket: i.ticket_id ? { provider: i.ticket_provider!, id: i.ticket_id, url: i.ticket_url! } : null,
    users_7d: i.users_7d, revenue_at_risk_cents: i.revenue_at_risk_cents, priority: i.priority, priority_reason: i.priority_reason,
  };
}

/** The severities in order, most severe first, as SQL over ux_issues.severity. */
export const SEVERITY_ORDER = sql<number>`case severity when 'critical' then 0 when 'high' then 1 when 'medium' then 2 else 3 end`;
