// GET /v1/query/revenue and GET /v1/query/recommendations.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { getRecommendations, getRevenueAtRisk } from './service.ts';

const Row = Type.Record(Type.String(), Type.Unknown());
const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });

export async function revenueRoutes(app: App) {
  app.get('/query/revenue', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Monthly revenue at risk across open issues (needs conversion tracking)', querystring: SiteQuery,
      response: {
        200: Envelope(Type.Object({
          currency: Type.String(), conversion_events: Type.Array(Type.String()), window_days: Type.Integer(), tracking: Type.Boolean(),
          message: Type.Union([Type.String(), Type.Null()]), average_value_cents: Type.Union([Type.Integer(), Type.Null()]),
          average_value_source: Type.Union([Type.String(), Type.Null()]), total_monthly_revenue_at_risk_cents: Type.Integer(),
          total_monthly_revenue_at_risk: Type.Number(), issues: Type.Array(Row),
        })),
      },
    },
  }, async (request) => ok(await getRevenueAtRisk({ ctx: contextOf(request), input: request.query })));

  app.get('/query/recommendations', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'What to fix first: open issues by priority, each with a concrete recommendation',
      querystring: Type.Object({ ...SiteQuery.properties, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: { 200: Envelope(Type.Object({ currency: Type.String(), recommendations: Type.Array(Row) })) },
    },
  }, async (request) => ok(await getRecommendations({ ctx: contextOf(request), input: request.query })));
}
