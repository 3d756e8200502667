// POST /v1/manage/annotations: a note on the timeline. Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { createAnnotationOp } from './operations.ts';

export async function annotationRoutes(app: App) {
  operationRoute(app, createAnnotationOp);
}
