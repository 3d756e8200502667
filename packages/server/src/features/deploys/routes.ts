// Deploys: recorded on /manage, read on /query. Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { deployDetailOp, listDeploysOp, recordDeployOp } from './operations.ts';

export async function deployRoutes(app: App) {
  for (const op of [recordDeployOp, listDeploysOp, deployDetailOp]) operationRoute(app, op);
}
