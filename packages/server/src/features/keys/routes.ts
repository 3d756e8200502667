// API keys on /manage: list, create, revoke. Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { KEY_OPERATIONS } from './operations.ts';

export async function keyRoutes(app: App) {
  for (const op of KEY_OPERATIONS) operationRoute(app, op);
}
