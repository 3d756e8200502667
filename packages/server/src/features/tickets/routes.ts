// POST /v1/manage/issues/{issue_id}/ticket: push an issue to Linear or GitHub as a ticket.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { contextOf } from '../../http/context.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { createTicket } from './service.ts';

export async function ticketRoutes(app: App) {
  const { secrets, targets: policy, config } = app.services;

  app.post('/manage/issues/:issue_id/ticket', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' }, docs: { errors: ['conflict', 'upstream_error'] } },
    schema: {
      tags: ['issues'], summary: 'Create a Linear or GitHub ticket for an issue',
      params: Type.Object({ issue_id: Type.String() }),
      body: Type.Object({ provider: Type.Optional(Type.Union([Type.Literal('linear'), Type.Literal('github')])) }, { additionalProperties: false }),
      response: { 201: Envelope(Type.Object({ issue_id: Type.String(), provider: Type.String(), ticket_id: Type.String(), url: Type.String() })) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createTicket({ ctx: contextOf(request), input: { ...request.body, ...request.params }, secrets, policy, config }));
  });
}
