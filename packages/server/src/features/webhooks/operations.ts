// The webhook operations: the site's webhooks (never their secrets), registering, changing and
// deleting one, its delivery log, a delivery sent again, the signing secret replaced, and a
// signed test event. A key with webhook:write manages webhooks only; manage:write, everything.
// The target policy, secrets and the delivery's own needs (store, clock, config) are the app's
// services (partOf(ctx, ...)).
import { defineOperation, type OperationAccess } from '../../domain/operation.ts';
import { partOf, type ServiceContext } from '../../domain/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import type { DeliveryDeps } from '../../delivery/handlers.ts';
import { listDeliveries } from './delivery-log.ts';
import {
  CreatedWebhook, CreateWebhookBody, DeliveryList, DeliveryParams, DeliveryRecord, ListDeliveriesQuery, ListWebhooksQuery, RotatedWebhook, RotateSecretBody,
  UpdateWebhookBody, WebhookList, WebhookParams, WebhookRecord,
} from './schemas.ts';
import { createWebhook, deleteWebhook, retryDelivery, rotateWebhookSecret, sendTestEvent, updateWebhook } from './service.ts';
import { listWebhooks } from './webhook-list.ts';

/** Reading webhooks and their deliveries: a key with manage:write or webhook:write, any user. */
const READ = { scopes: ['manage:write', 'webhook:write'], role: 'viewer' } as const satisfies OperationAccess;
/** Changing them or sending to them: the same keys, an admin or owner. */
const ADMIN = { ...READ, role: 'admin' } as const satisfies OperationAccess;

/** What sending a delivery now needs, from the app's services. */
const deliveryDeps = (ctx: ServiceContext): DeliveryDeps => ({
  store: partOf(ctx, 'store'), clock: partOf(ctx, 'clock'), secrets: partOf(ctx, 'secrets'), config: partOf(ctx, 'config'), policy: partOf(ctx, 'targets'),
});

export const listWebhooksOp = defineOperation({
  name: 'webhooks.list',
  summary: 'List the site\'s webhooks (never their secrets)',
  access: READ,
  http: { method: 'GET', path: '/manage/webhooks', surface: 'manage', tags: ['webhooks'] },
  input: { query: ListWebhooksQuery },
  output: WebhookList,
  run: (ctx, input) => listWebhooks({ ctx, input }),
});

export const createWebhookOp = defineOperation({
  name: 'webhooks.create',
  summary: 'Register a webhook; a generated secret is shown once',
  access: ADMIN,
  http: { method: 'POST', path: '/manage/webhooks', surface: 'manage', tags: ['webhooks'], status: 201 },
  input: { body: CreateWebhookBody },
  output: CreatedWebhook,
  write: { idempotent: false },
  run: (ctx, input) => createWebhook({ ctx, input, secrets: partOf(ctx, 'secrets'), policy: partOf(ctx, 'targets') }),
});

export const updateWebhookOp = defineOperation({
  name: 'webhooks.update',
  summary: 'Change a webhook\'s URL, events or enabled flag',
  access: ADMIN,
  http: { method: 'PATCH', path: '/manage/webhooks/:id', surface: 'manage', tags: ['webhooks'] },
  input: { params: WebhookParams, body: UpdateWebhookBody },
  output: WebhookRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateWebhook({ ctx, input, policy: partOf(ctx, 'targets') }),
});

export const deleteWebhookOp = defineOperation({
  name: 'webhooks.delete',
  summary: 'Delete a webhook',
  access: ADMIN,
  http: { method: 'DELETE', path: '/manage/webhooks/:id', surface: 'manage', tags: ['webhooks'] },
  input: { params: WebhookParams },
  output: Deleted,
  write: { idempotent: true },
  run: (ctx, input) => deleteWebhook({ ctx, input }),
});

export const listDeliveriesOp = defineOperation({
  name: 'webhooks.deliveries',
  summary: 'Deliveries to this webhook, newest first, with every attempt',
  access: READ,
  http: { method: 'GET', path: '/manage/webhooks/:id/deliveries', surface: 'manage', tags: ['webhooks'] },
  input: { params: WebhookParams, query: ListDeliveriesQuery },
  output: DeliveryList,
  run: (ctx, input) => listDeliveries({ ctx, input }),
});

export const retryDeliveryOp = defineOperation({
  name: 'webhooks.retry_delivery',
  summary: 'Send a delivery again now (also a failed one)',
  access: ADMIN,
  http: { method: 'POST', path: '/manage/webhooks/:id/deliveries/:delivery_id/retry', surface: 'manage', tags: ['webhooks'], bodyRequired: false },
  input: { params: DeliveryParams },
  output: DeliveryRecord,
  write: { idempotent: false },
  run: (ctx, input) => retryDelivery({ ctx, input, delivery: deliveryDeps(ctx) }),
});

export const rotateWebhookSecretOp = defineOperation({
  name: 'webhooks.rotate_secret',
  summary: 'Replace the signing secret; a generated one is shown once, and the old one keeps signing beside it for a grace period',
  access: ADMIN,
  // The body is optional: without one a secret is generated and the old one signs beside it for 24 hours.
  http: { method: 'POST', path: '/manage/webhooks/:id/rotate-secret', surface: 'manage', tags: ['webhooks'], bodyRequired: false },
  input: { params: WebhookParams, body: RotateSecretBody },
  output: RotatedWebhook,
  write: { idempotent: false },
  run: (ctx, input) => rotateWebhookSecret({ ctx, input, secrets: partOf(ctx, 'secrets') }),
});

export const testWebhookOp = defineOperation({
  name: 'webhooks.test',
  summary: 'Send a signed test event now and report the outcome',
  access: ADMIN,
  http: { method: 'POST', path: '/manage/webhooks/:id/test', surface: 'manage', tags: ['webhooks'], bodyRequired: false },
  input: { params: WebhookParams },
  output: DeliveryRecord,
  write: { idempotent: false },
  run: (ctx, input) => sendTestEvent({ ctx, input, delivery: deliveryDeps(ctx) }),
});

export const WEBHOOK_OPERATIONS = [
  listWebhooksOp, createWebhookOp, updateWebhookOp, deleteWebhookOp, listDeliveriesOp, retryDeliveryOp, rotateWebhookSecretOp, testWebhookOp,
];
