// GET /v1/query/mcp/context: one call that tells an assistant the state of a site (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { siteContextOp } from './operations.ts';

export async function mcpContextRoutes(app: App) {
  operationRoute(app, siteContextOp);
}
