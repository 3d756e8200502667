// Alert rules on /manage: the list, create, change and delete. Derived from the catalog
// (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { ALERT_RULE_OPERATIONS } from './operations.ts';

export async function alertRuleRoutes(app: App) {
  for (const op of ALERT_RULE_OPERATIONS) operationRoute(app, op);
}
