// Org settings: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { SETTINGS_OPERATIONS } from './operations.ts';

export async function settingsRoutes(app: App) {
  for (const op of SETTINGS_OPERATIONS) operationRoute(app, op);
}
