// POST /v1/manage/issues/{issue_id}/ticket: push an issue to Linear or GitHub as a ticket.
// Derived from the catalog (operations.ts); documents its 409 (a ticket already made) and 502
// (the tracker refused or failed).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { createTicketOp } from './operations.ts';

export async function ticketRoutes(app: App) {
  operationRoute(app, createTicketOp, { errors: ['conflict', 'upstream_error'] });
}
