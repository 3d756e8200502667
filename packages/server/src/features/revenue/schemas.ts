// The revenue routes' query strings and answers; the services (and the MCP tools) take and
// return the same shapes.
import { Type } from '@sinclair/typebox';
import { IssueStatusEnum, Nullable, OneOf, SeverityEnum, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';
import { AVERAGE_VALUE_SOURCES, ESTIMATE_CONFIDENCES } from '../../pipeline/revenue.ts';

const Rate = Nullable(Type.Number({ description: 'Conversions per session, 0-1; null without sessions' }));
const IssueRevenue = Type.Object({
  issue_id: Uuid, title: Type.String(), page: Type.String(), element_selector: Type.String(), type: Type.String({ description: 'The signal type' }),
  severity: SeverityEnum, affected_sessions: Type.Integer(), calm_sessions: Type.Integer(),
  affected_conversion_rate: Rate, calm_conversion_rate: Rate, gap: Nullable(Type.Number()),
  monthly_revenue_at_risk_cents: Nullable(Type.Integer({ description: 'null when the estimate is low confidence' })), monthly_revenue_at_risk: Nullable(Type.Number()),
  confidence: OneOf(ESTIMATE_CONFIDENCES, 'low: fewer than 30 sessions on either side, or no average value'),
});
const Recommendation = Type.Object({
  issue_id: Uuid, title: Type.String(), page: Type.String(), element_selector: Type.String(), type: Type.String({ description: 'The signal type' }),
  severity: SeverityEnum, status: IssueStatusEnum, affected_users: Type.Integer({ description: 'Users affected over the last 24 hours (the issue\'s user_count)' }),
  monthly_revenue_at_risk_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Monthly revenue at risk in cents (the issue\'s revenue_at_risk_cents, as of the latest pipeline cycle); null when not estimated' }),
  priority: Type.Number({ description: 'The issue\'s priority, 0-100: users in 7 days, severity, signal weight and revenue at risk (docs/issues.md, "Priority"); the list is in this order' }),
  priority_reason: Type.String({ description: 'The priority in words' }),
  recommendation: Type.String(), issue_url: Type.String(),
});

export const RevenueQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });
export const RecommendationsQuery = Type.Object({
  ...RevenueQuery.properties,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most recommendations returned (1 to 100, default 20)' }),
});

export const RevenueAtRisk = Type.Object({
  currency: Type.String(), conversion_events: Type.Array(Type.String()), window_days: Type.Integer(), tracking: Type.Boolean(),
  message: Type.Union([Type.String(), Type.Null()]), average_value_cents: Type.Union([Type.Integer(), Type.Null()]),
  average_value_source: Nullable(OneOf(AVERAGE_VALUE_SOURCES)), total_monthly_revenue_at_risk_cents: Type.Integer(),
  total_monthly_revenue_at_risk: Type.Number(), issues: Type.Array(IssueRevenue),
});
export const Recommendations = Type.Object({ currency: Type.String(), recommendations: Type.Array(Recommendation) });
