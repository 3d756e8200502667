// GET /v1/query/clips, /v1/query/clips/{id}, /v1/query/page-snapshot (the query surface) and
// GET /v1/manage/site/{id}/clips (a site's clip settings and totals, for the settings screen;
// they are changed by PATCH /v1/manage/site/{id}). Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { CLIP_OPERATIONS } from './operations.ts';

export async function clipRoutes(app: App) {
  for (const op of CLIP_OPERATIONS) operationRoute(app, op);
}
