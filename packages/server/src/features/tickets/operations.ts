// The ticket operation: push an issue to Linear or GitHub as a ticket (the tracker's
// credentials sealed with the app's secrets, its address checked against the outbound target
// policy, the link from the public URL: all the app's services, partOf(ctx, ...)).
import { partOf } from '../../domain/context.ts';
import { defineOperation, WRITE_ACCESS } from '../../domain/operation.ts';
import { CreateTicketBody, TicketParams, TicketRecord } from './schemas.ts';
import { createTicket } from './service.ts';

export const createTicketOp = defineOperation({
  name: 'tickets.create',
  summary: 'Create a Linear or GitHub ticket for an issue',
  access: WRITE_ACCESS,
  http: { method: 'POST', path: '/manage/issues/:issue_id/ticket', surface: 'manage', tags: ['issues'], status: 201, errors: ['conflict', 'upstream_error'] },
  input: { params: TicketParams, body: CreateTicketBody },
  output: TicketRecord,
  write: { idempotent: false },
  run: (ctx, input) => createTicket({ ctx, input, secrets: partOf(ctx, 'secrets'), policy: partOf(ctx, 'targets'), config: partOf(ctx, 'config') }),
});

export const TICKET_OPERATIONS = [createTicketOp];
