// Alerts: list and detail (with the incident timeline) on /query; the lifecycle on /manage.
// Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { alertDetailOp, listAlertsOp, updateAlertOp } from './operations.ts';

export async function alertRoutes(app: App) {
  for (const op of [listAlertsOp, alertDetailOp, updateAlertOp]) operationRoute(app, op);
}
