// The HTTP face of the whole catalog: the route of every operation in features/catalog.ts that
// has an `http` binding (http/operation-route.ts derives each one), registered in the
// catalog's order, which is the order of the paths in the OpenAPI document. No feature
// registers a catalog route of its own.
import { CATALOG } from '../features/catalog.ts';
import type { App } from './app-types.ts';
import { operationRoute } from './operation-route.ts';

export async function catalogRoutes(app: App): Promise<void> {
  for (const op of CATALOG) if (op.http) operationRoute(app, op);
}
