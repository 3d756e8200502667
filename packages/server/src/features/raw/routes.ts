// GET /v1/query/raw (paged rows of one table) and GET /v1/query/export/events.csv (every event,
// streamed as a download). Derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { RAW_OPERATIONS } from './operations.ts';

export async function rawRoutes(app: App) {
  for (const op of RAW_OPERATIONS) operationRoute(app, op);
}
