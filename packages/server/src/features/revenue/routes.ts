// GET /v1/query/revenue and GET /v1/query/recommendations: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { REVENUE_OPERATIONS } from './operations.ts';

export async function revenueRoutes(app: App) {
  for (const op of REVENUE_OPERATIONS) operationRoute(app, op);
}
