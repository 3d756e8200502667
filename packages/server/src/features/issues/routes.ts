// The issue routes: derived from the catalog (operations.ts).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { issueDetailOp, listIssuesOp, updateIssueOp } from './operations.ts';

export async function issueRoutes(app: App) {
  for (const op of [listIssuesOp, issueDetailOp, updateIssueOp]) operationRoute(app, op);
}
