// Score routes: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { SCORE_OPERATIONS } from './operations.ts';

export async function scoreRoutes(app: App) {
  for (const op of SCORE_OPERATIONS) operationRoute(app, op);
}
