// Webhook jobs: an event fans out into one delivery per enabled webhook of its site that is
// subscribed to its type; a delivery is one Standard Webhooks POST, signed at send time.
import type { Transaction } from 'kysely';
import type { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import { enqueue, type Payload } from '../events/jobs.ts';
import type { Store } from '../store/db.ts';
import type { Database, WebhookDeliveriesTable } from '../store/tables.ts';
import { postJson, type SendResult } from './http-post.ts';
import { sign } from './signing.ts';
import type { TargetPolicy } from './targets.ts';

/** Queues the event's deliveries, in the transaction that marks the event done. */
export async function fanOut(trx: Transaction<Database>, eventId: string, siteId: string, event: Payload<'event'>, now: number) {
  const hooks = await trx.selectFrom('webhooks').select(['id', 'events']).where('site_id', '=', siteId).where('enabled', '=', 1).execute();
  for (const hook of hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(event.type))) {
    await enqueue(trx, { kind: 'webhook.delivery', siteId, webhookId: hook.id, eventId, payload: event }, now);
  }
}

interface WebhookSendDeps { store: Store; secrets: Secrets; clock: Clock; policy: TargetPolicy }

/** One signed POST of the stored body, byte for byte; a disabled or deleted webhook is a final failure. */
export async function sendToWebhook(delivery: WebhookDeliveriesTable, deps: WebhookSendDeps, timeoutMs: number): Promise<SendResult & { final?: boolean }> {
  const hook = await deps.store.db.selectFrom('webhooks').selectAll().where('id', '=', delivery.webhook_id).executeTakeFirst();
  if (!hook || hook.enabled !== 1) {
    return { ok: false, statusCode: null, latencyMs: 0, error: hook ? 'webhook disabled' : 'webhook deleted', body: '', final: true };
  }
  const now = deps.clock.now();
  const timestamp = Math.floor(now / 1000);
  // During a rotation's grace period both secrets sign, space-separated (Standard Webhooks):
  // a receiver that knows either one verifies the delivery.
  const secrets = [deps.secrets.decrypt(hook.secret_enc)];
  if (hook.previous_secret_enc && hook.previous_secret_expires_at !== null && now < hook.previous_secret_expires_at) {
    secrets.push(deps.secrets.decrypt(hook.previous_secret_enc));
  }
  // webhook-id is the delivery id: stable across retries, so receivers can de-duplicate.
  return postJson(hook.url, delivery.payload, {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, delivery.id, timestamp, delivery.payload)).join(' '),
  }, deps.policy, timeoutMs);
}
