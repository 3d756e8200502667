// Webhook routes: the schemas, and one service call per handler.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { contextOf } from '../../http/context.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { listDeliveries } from './delivery-log.ts';
import {
  CreateWebhookBody, DeliveryParams, DeliveryRecord, ListDeliveriesQuery, ListWebhooksQuery, RotateSecretBody, UpdateWebhookBody, WebhookParams, WebhookRecord,
} from './schemas.ts';
import { createWebhook, deleteWebhook, retryDelivery, rotateWebhookSecret, sendTestEvent, updateWebhook } from './service.ts';
import { listWebhooks } from './webhook-list.ts';

const read = { surface: 'manage', scopes: ['manage:write', 'webhook:write'], role: 'viewer' } as const;
const write = { ...read, role: 'admin' } as const;

export async function webhookRoutes(app: App) {
  const { store, clock, secrets, targets: policy, config } = app.services;
  const delivery = { store, clock, secrets, config, policy };

  app.get('/manage/webhooks', {
    config: { access: read },
    schema: {
      tags: ['webhooks'], summary: 'List the site\'s webhooks (never their secrets)',
      querystring: ListWebhooksQuery,
      response: { 200: Envelope(Type.Object({ webhooks: Type.Array(WebhookRecord) })) },
    },
  }, async (request) => ok(await listWebhooks({ ctx: contextOf(request), input: request.query })));

  app.post('/manage/webhooks', {
    config: { access: write },
    schema: {
      tags: ['webhooks'], summary: 'Register a webhook; a generated secret is shown once',
      body: CreateWebhookBody,
      response: { 201: Envelope(Type.Intersect([WebhookRecord, Type.Object({ secret: Type.Optional(Type.String({ description: 'Only when generated, only here' })) })])) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createWebhook({ ctx: contextOf(request), input: request.body, secrets, policy }));
  });

  app.patch('/manage/webhooks/:id', {
    config: { access: write },
    schema: {
      tags: ['webhooks'], summary: 'Change a webhook\'s URL, events or enabled flag', params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: Envelope(WebhookRecord) },
    },
  }, async (request) => ok(await updateWebhook({ ctx: contextOf(request), input: { ...request.body, ...request.params }, policy })));

  app.delete('/manage/webhooks/:id', {
    config: { access: write },
    schema: { tags: ['webhooks'], summary: 'Delete a webhook', params: WebhookParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await deleteWebhook({ ctx: contextOf(request), input: request.params })));

  app.get('/manage/webhooks/:id/deliveries', {
    config: { access: read },
    schema: {
      tags: ['webhooks'], summary: 'Deliveries to this webhook, newest first, with every attempt', params: WebhookParams,
      querystring: ListDeliveriesQuery,
      response: { 200: Envelope(Type.Object({ deliveries: Type.Array(DeliveryRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() })) },
    },
  }, async (request) => ok(await listDeliveries({ ctx: contextOf(request), input: { ...request.query, ...request.params } })));

  app.post('/manage/webhooks/:id/deliveries/:delivery_id/retry', {
    config: { access: { ...write, bodyRequired: false } },
    schema: {
      tags: ['webhooks'], summary: 'Send a delivery again now (also a failed one)',
      params: DeliveryParams, response: { 200: Envelope(DeliveryRecord) },
    },
  }, async (request) => ok(await retryDelivery({ ctx: contextOf(request), input: request.params, delivery })));

  app.post('/manage/webhooks/:id/rotate-secret', {
    config: { access: { ...write, bodyRequired: false } },
    schema: {
      tags: ['webhooks'], summary: 'Replace the signing secret; a generated one is shown once, and the old one keeps signing beside it for a grace period',
      params: WebhookParams, body: RotateSecretBody,
      response: { 200: Envelope(Type.Intersect([WebhookRecord, Type.Object({ secret: Type.Optional(Type.String({ description: 'The new secret when generated, only here; absent when you gave one' })) })])) },
    },
  }, async (request) => ok(await rotateWebhookSecret({ ctx: contextOf(request), input: { ...(request.body ?? {}), ...request.params }, secrets })));

  app.post('/manage/webhooks/:id/test', {
    config: { access: { ...write, bodyRequired: false } },
    schema: { tags: ['webhooks'], summary: 'Send a signed test event now and report the outcome', params: WebhookParams, response: { 200: Envelope(DeliveryRecord) } },
  }, async (request) => ok(await sendTestEvent({ ctx: contextOf(request), input: request.params, delivery })));
}
