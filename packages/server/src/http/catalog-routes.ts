// The HTTP face of the whole catalog: the route of every operation in features/catalog.ts that
// has an `http` binding (http/operation-route.ts derives each one), registered in the
// catalog's order, which is the order of the paths in the OpenAPI document. No feature
// registers a catalog route of its own.
import type { Operation } from '../domain/operation.ts';
import { CATALOG } from '../features/catalog.ts';
import type { App } from './app-types.ts';
import { operationRoute } from './operation-route.ts';

export interface CatalogRouteOptions {
  /**
   * Temporary, until the manage routes still written by hand join the catalog (issue 27): route
   * plugins registered right after the catalog route they follow in the OpenAPI document, so
   * the document keeps its order meanwhile. Empty once they are operations.
   */
  handWrittenAfter?: ReadonlyMap<Operation<any, any>, readonly ((app: App) => Promise<void>)[]>;
}

export async function catalogRoutes(app: App, { handWrittenAfter }: CatalogRouteOptions = {}): Promise<void> {
  for (const op of CATALOG) {
    if (!op.http) continue;
    operationRoute(app, op);
    for (const routes of handWrittenAfter?.get(op) ?? []) await app.register(routes);
  }
}
