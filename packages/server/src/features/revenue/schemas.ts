// The revenue routes' query strings and answers; the services (and the MCP tools) take and
// return the same shapes.
import { Type } from '@sinclair/typebox';
import { SiteIdParam } from '../../domain/schema-parts.ts';

const Row = Type.Record(Type.String(), Type.Unknown());

export const RevenueQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });
export const RecommendationsQuery = Type.Object({
  ...RevenueQuery.properties,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most recommendations returned (1 to 100, default 20)' }),
});

export const RevenueAtRisk = Type.Object({
  currency: Type.String(), conversion_events: Type.Array(Type.String()), window_days: Type.Integer(), tracking: Type.Boolean(),
  message: Type.Union([Type.String(), Type.Null()]), average_value_cents: Type.Union([Type.Integer(), Type.Null()]),
  average_value_source: Type.Union([Type.String(), Type.Null()]), total_monthly_revenue_at_risk_cents: Type.Integer(),
  total_monthly_revenue_at_risk: Type.Number(), issues: Type.Array(Row),
});
export const Recommendations = Type.Object({ currency: Type.String(), recommendations: Type.Array(Row) });
