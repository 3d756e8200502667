// GET /v1/manage/audit-log: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { auditLogOp } from './operations.ts';

export async function auditLogRoutes(app: App) {
  operationRoute(app, auditLogOp);
}
