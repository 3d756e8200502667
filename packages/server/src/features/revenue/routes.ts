// GET /v1/query/revenue and GET /v1/query/recommendations.
import type { App } from '../../http/app-types.ts';
import { Envelope, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { Recommendations, RecommendationsQuery, RevenueAtRisk, RevenueQuery } from './schemas.ts';
import { getRecommendations, getRevenueAtRisk } from './service.ts';

export async function revenueRoutes(app: App) {
  app.get('/query/revenue', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Monthly revenue at risk across open issues (needs conversion tracking)', querystring: RevenueQuery,
      response: { 200: Envelope(RevenueAtRisk) },
    },
  }, async (request, reply) => okOnce(reply, await getRevenueAtRisk({ ctx: contextOf(request), input: request.query })));

  app.get('/query/recommendations', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'What to fix first: issues needing attention in priority order, each with a concrete recommendation',
      querystring: RecommendationsQuery,
      response: { 200: Envelope(Recommendations) },
    },
  }, async (request, reply) => okOnce(reply, await getRecommendations({ ctx: contextOf(request), input: request.query })));
}
