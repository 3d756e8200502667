// GET /v1/query/whoami: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { whoamiOp } from './operations.ts';

export async function whoamiRoutes(app: App) {
  operationRoute(app, whoamiOp);
}
