// GET /v1/query/funnel (an ad-hoc funnel) and the saved funnels on the manage surface.
// Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { createFunnelOp, deleteFunnelOp, funnelReportOp, listFunnelsOp, updateFunnelOp } from './operations.ts';

export async function funnelRoutes(app: App) {
  for (const op of [funnelReportOp, listFunnelsOp, createFunnelOp, updateFunnelOp, deleteFunnelOp]) operationRoute(app, op);
}
