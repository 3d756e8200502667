// GET /v1/query/element-heatmap and /v1/query/page-heatmap: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { elementHeatmapOp, pageHeatmapOp } from './operations.ts';

export async function heatmapRoutes(app: App) {
  operationRoute(app, elementHeatmapOp);
  operationRoute(app, pageHeatmapOp);
}
