// GET /v1/query/session (one session, every event in order, its narrative) and GET
// /v1/query/sessions (the search): derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { SESSION_OPERATIONS } from './operations.ts';

export async function sessionRoutes(app: App) {
  for (const op of SESSION_OPERATIONS) operationRoute(app, op);
}
