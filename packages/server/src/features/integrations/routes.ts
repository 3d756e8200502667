// Integration routes: the schemas, and one service call per handler.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { contextOf } from '../../http/context.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { listIntegrations } from './integration-list.ts';
import { ConnectIntegrationBody, IntegrationParams, IntegrationRecord, ListIntegrationsQuery } from './schemas.ts';
import { connectIntegration, disconnectIntegration } from './service.ts';

const read = { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } as const;
const write = { ...read, role: 'admin' } as const;

export async function integrationRoutes(app: App) {
  const { secrets, targets: policy } = app.services;

  app.get('/manage/integrations', {
    config: { access: read },
    schema: {
      tags: ['integrations'], summary: 'The site\'s integrations, credentials masked',
      querystring: ListIntegrationsQuery,
      response: { 200: Envelope(Type.Object({ integrations: Type.Array(IntegrationRecord) })) },
    },
  }, async (request) => ok(await listIntegrations({ ctx: contextOf(request), input: request.query })));

  app.post('/manage/integrations', {
    config: { access: write, docs: { errors: ['conflict'] } },
    schema: {
      tags: ['integrations'], summary: 'Connect Slack, PagerDuty, Linear or GitHub (one per provider per site)',
      body: ConnectIntegrationBody,
      response: { 201: Envelope(IntegrationRecord) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await connectIntegration({ ctx: contextOf(request), input: request.body, secrets, policy }));
  });

  app.delete('/manage/integrations/:id', {
    config: { access: write },
    schema: { tags: ['integrations'], summary: 'Disconnect an integration', params: IntegrationParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await disconnectIntegration({ ctx: contextOf(request), input: request.params })));
}
