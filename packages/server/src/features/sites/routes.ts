// The org's sites on /manage: list, create, change, delete. Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { createSiteOp, deleteSiteOp, listSitesOp, updateSiteOp } from './operations.ts';

export async function siteRoutes(app: App) {
  for (const op of [listSitesOp, createSiteOp, updateSiteOp, deleteSiteOp]) operationRoute(app, op);
}
