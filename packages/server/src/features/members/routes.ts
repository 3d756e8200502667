// The org's members on /manage. Derived from the catalog (operations.ts); adding, changing and
// removing a member may also answer 409 conflict (the last owner, a member already there).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import type { RouteDocs } from '../../http/openapi.ts';
import { addMemberOp, changeRoleOp, listMembersOp, removeMemberOp, unlockMemberOp } from './operations.ts';

const conflict: RouteDocs = { errors: ['conflict'] };

export async function memberRoutes(app: App) {
  operationRoute(app, listMembersOp);
  for (const op of [addMemberOp, changeRoleOp, removeMemberOp]) operationRoute(app, op, conflict);
  operationRoute(app, unlockMemberOp);
}
