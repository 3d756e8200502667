// Webhooks: endpoints a site's events are signed and sent to (Standard Webhooks). Secrets are
// sealed at rest (AES-256-GCM) and never returned after creation; targets must be public.
// Each service checks the site or the webhook within the caller's tenancy first.
import { v7 as uuidv7 } from 'uuid';
import { recordAudit } from '../../audit/record.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { resolveSite, rowInTenant } from '../../domain/tenancy.ts';
import { generateWebhookSecret } from '../../delivery/signing.ts';
import { checkTarget, type TargetPolicy } from '../../delivery/targets.ts';
import { sendDeliveryNow } from '../../delivery/worker.ts';
import type { DeliveryDeps } from '../../delivery/handlers.ts';
import { enqueue } from '../../events/jobs.ts';
import { iso } from '../../clock.ts';
import type { WebhooksTable } from '../../store/tables.ts';
import { deliveryRecord } from './delivery-log.ts';
import type { CreateWebhookBody, RotateSecretBody, UpdateWebhookBody } from './schemas.ts';
import { HOUR_MS } from '../../domain/time.ts';
import { toWebhookRecord } from './webhook-list.ts';

/** Registers a webhook; a generated secret is shown once, in this answer only. */
export async function createWebhook({ ctx, input, secrets, policy }: { ctx: ServiceContext; input: CreateWebhookBody; secrets: Secrets; policy: TargetPolicy }) {
  const site = await resolveSite(ctx, input.site_id);
  await checkTarget(input.url, policy);
  const { now } = ctx;
  const secret = input.secret ?? generateWebhookSecret();
  const row: WebhooksTable = {
    id: uuidv7(), site_id: site.id, url: input.url, events: JSON.stringify(input.events),
    secret_enc: secrets.encrypt(secret), enabled: input.enabled === false ? 0 : 1, created_at: now, updated_at: now,
    previous_secret_enc: null, previous_secret_expires_at: null,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('webhooks').values(row).execute();
    await recordAudit(trx, ctx, { action: 'webhook.created', targetType: 'webhook', targetId: row.id, siteId: site.id, details: { events: input.events } });
  });
  return input.secret ? toWebhookRecord(row) : { ...toWebhookRecord(row), secret };
}

export async function updateWebhook({ ctx, input: { id, ...input }, policy }: { ctx: ServiceContext; input: UpdateWebhookBody & { id: string }; policy: TargetPolicy }) {
  const hook = await rowInTenant(ctx, 'webhooks', id, 'Webhook');
  if (input.url !== undefined) await checkTarget(input.url, policy);
  const { now } = ctx;
  const next: WebhooksTable = {
    ...hook,
    url: input.url ?? hook.url,
    events: input.events ? JSON.stringify(input.events) : hook.events,
    enabled: input.enabled === undefined ? hook.enabled : input.enabled ? 1 : 0,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('webhooks').set({ url: next.url, events: next.events, enabled: next.enabled, updated_at: now }).where('id', '=', hook.id).execute();
    await recordAudit(trx, ctx, { action: 'webhook.updated', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id, details: { fields: Object.keys(input) } });
  });
  return toWebhookRecord(next);
}

/**
 * A new signing secret, returned once. For the grace period deliveries carry a signature with
 * each secret (Standard Webhooks allows several), so a receiver switches without losing one;
 * then only the new secret signs. Rotating again during a grace period replaces the previous
 * secret with the one in use until now.
 */
export async function rotateWebhookSecret({ ctx, input: { id, ...input }, secrets }: { ctx: ServiceContext; input: RotateSecretBody & { id: string }; secrets: Secrets }) {
  const hook = await rowInTenant(ctx, 'webhooks', id, 'Webhook');
  const { now } = ctx;
  const secret = input.secret ?? generateWebhookSecret();
  const graceHours = input.grace_hours ?? 24;
  const next: WebhooksTable = {
    ...hook,
    secret_enc: secrets.encrypt(secret),
    previous_secret_enc: graceHours > 0 ? hook.secret_enc : null,
    previous_secret_expires_at: graceHours > 0 ? now + graceHours * HOUR_MS : null,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('webhooks').set({
      secret_enc: next.secret_enc, previous_secret_enc: next.previous_secret_enc, previous_secret_expires_at: next.previous_secret_expires_at, updated_at: now,
    }).where('id', '=', hook.id).execute();
    await recordAudit(trx, ctx, { action: 'webhook.secret_rotated', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id, details: { grace_hours: graceHours, generated: input.secret === undefined } });
  });
  // A secret the caller chose is never echoed (docs/webhooks.md): only a generated one is shown, once.
  return input.secret === undefined ? { ...toWebhookRecord(next), secret } : toWebhookRecord(next);
}

export async function deleteWebhook({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  const hook = await rowInTenant(ctx, 'webhooks', input.id, 'Webhook');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('webhooks').where('id', '=', hook.id).execute();
    await recordAudit(trx, ctx, { action: 'webhook.deleted', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id });
  });
  return { id: hook.id, deleted: true };
}

/** Sends a delivery again now, also a failed one, under the same webhook-id. */
export async function retryDelivery({ ctx, input, delivery: deps }: { ctx: ServiceContext; input: { id: string; delivery_id: string }; delivery: DeliveryDeps }) {
  const hook = await rowInTenant(ctx, 'webhooks', input.id, 'Webhook');
  const delivery = await ctx.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id)
    .where('id', '=', input.delivery_id.toLowerCase()).executeTakeFirst();
  if (!delivery) throw new AppError('not_found', 'Delivery not found');
  await ctx.db.transaction().execute((trx) => recordAudit(trx, ctx, {
    action: 'webhook.delivery_retried', targetType: 'webhook_delivery', targetId: delivery.id, siteId: hook.site_id, details: { webhook_id: hook.id, event_type: delivery.event_type },
  }));
  // A manual retry starts a fresh series of attempts under the same webhook-id.
  return deliveryRecord(ctx.db, await sendDeliveryNow(deps, { ...delivery, attempts: 0 }));
}

/** Sends a signed `webhook.test` event now, once (not retried), and reports the outcome. */
export async function sendTestEvent({ ctx, input, delivery: deps }: { ctx: ServiceContext; input: { id: string }; delivery: DeliveryDeps }) {
  const hook = await rowInTenant(ctx, 'webhooks', input.id, 'Webhook');
  const { now } = ctx;
  const payload = { type: 'webhook.test' as const, timestamp: iso(now), site_id: hook.site_id, data: { webhook_id: hook.id, message: 'Quack! This is a test from Mallard.' } };
  const id = await ctx.db.transaction().execute(async (trx) => {
    await recordAudit(trx, ctx, { action: 'webhook.tested', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id });
    return enqueue(trx, { kind: 'webhook.delivery', siteId: hook.site_id, webhookId: hook.id, eventId: uuidv7(), payload, held: true }, now);
  });
  const delivery = await ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return deliveryRecord(ctx.db, await sendDeliveryNow(deps, delivery, { final: true }));
}
