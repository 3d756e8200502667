// GET /v1/query/journeys/friction and /v1/query/flows: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { JOURNEY_OPERATIONS } from './operations.ts';

export async function journeyRoutes(app: App) {
  for (const op of JOURNEY_OPERATIONS) operationRoute(app, op);
}
