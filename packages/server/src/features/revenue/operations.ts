// The revenue operations: revenue at risk, and what to fix first.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { Recommendations, RecommendationsQuery, RevenueAtRisk, RevenueQuery } from './schemas.ts';
import { getRecommendations, getRevenueAtRisk } from './service.ts';

export const revenueOp = defineOperation({
  name: 'revenue.at_risk',
  summary: 'Monthly revenue at risk across open issues (needs conversion tracking)',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/revenue', surface: 'query', tags: ['query'] },
  input: { query: RevenueQuery },
  output: RevenueAtRisk,
  run: (ctx, input) => getRevenueAtRisk({ ctx, input }),
});

export const recommendationsOp = defineOperation({
  name: 'revenue.recommendations',
  summary: 'What to fix first: issues needing attention in priority order, each with a concrete recommendation',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/recommendations', surface: 'query', tags: ['query'] },
  input: { query: RecommendationsQuery },
  output: Recommendations,
  run: (ctx, input) => getRecommendations({ ctx, input }),
});

export const REVENUE_OPERATIONS = [revenueOp, recommendationsOp];
