// Webhooks on /manage: the list, register, change, delete, the delivery log, a retry, the
// secret rotation and a test send. Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { WEBHOOK_OPERATIONS } from './operations.ts';

export async function webhookRoutes(app: App) {
  for (const op of WEBHOOK_OPERATIONS) operationRoute(app, op);
}
