// The delivery worker: takes due rows from the outbox and the webhook deliveries, each
// claimed with a lease (pushing its next attempt time forward; SKIP LOCKED on PostgreSQL),
// so two workers never send the same row at once and a crash only delays a retry.
// At-least-once: a row is marked done only after its send is recorded.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Secrets } from '../auth/secrets.ts';
import type { Dialect, Store } from '../store/db.ts';
import type { Database, WebhookDeliveriesTable } from '../store/tables.ts';
import { postJson } from './http-post.ts';
import { sign } from './signing.ts';
import type { TargetPolicy } from './targets.ts';
import type { Config } from '../config.ts';
import { sendNotification, type NotifyPayload } from './channels.ts';
import { runPeriodically, type Periodic } from '../jobs/periodic.ts';

/** Retries after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then failed. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
const LEASE_MS = 60_000;
const BATCH = 20;

export interface DeliveryDeps { store: Store; secrets: Secrets; clock: Clock; policy: TargetPolicy; config: Config }

async function claim(db: Kysely<Database>, dialect: Dialect, table: 'outbox' | 'webhook_deliveries', now: number, kinds?: string[]) {
  // Both tables share id, status and next_attempt_at; the name comes from the union above.
  const d = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  let due = d.selectFrom(table).select('id').where('status', '=', 'pending').where('next_attempt_at', '<=', now);
  if (kinds) due = due.where('kind', 'in', kinds);
  due = due.orderBy('next_attempt_at').limit(BATCH);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return d.updateTable(table).set({ next_attempt_at: now + LEASE_MS }).where('id', 'in', due).returningAll().execute();
}

/** Event rows become one delivery per enabled webhook of the site subscribed to the type. */
export async function fanOutEvents(deps: DeliveryDeps): Promise<number> {
  const { store, clock } = deps;
  const now = clock.now();
  const rows = await claim(store.db, store.dialect, 'outbox', now, ['event']);
  for (const row of rows) {
    const payload = String(row.payload);
    const { type } = JSON.parse(payload) as { type: string };
    await store.db.transaction().execute(async (trx) => {
      const hooks = await trx.selectFrom('webhooks').select(['id', 'events']).where('site_id', '=', String(row.site_id)).where('enabled', '=', 1).execute();
      for (const hook of hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(type))) {
        await trx.insertInto('webhook_deliveries').values({
          id: uuidv7(), webhook_id: hook.id, site_id: String(row.site_id), event_type: type, event_id: String(row.id), payload,
          status: 'pending', attempts: 0, next_attempt_at: now, last_status_code: null, last_error: null,
          created_at: now, updated_at: now, delivered_at: null,
        }).execute();
      }
      await trx.updateTable('outbox').set({ status: 'done', processed_at: now }).where('id', '=', String(row.id)).execute();
    });
  }
  return rows.length;
}

/** Sends one delivery now and records the attempt; returns its new state. A final attempt
 * (a test send) is not retried. */
export async function attemptDelivery(deps: DeliveryDeps, delivery: WebhookDeliveriesTable, options: { final?: boolean } = {}): Promise<WebhookDeliveriesTable> {
  const { store, secrets, clock, policy } = deps;
  const hook = await store.db.selectFrom('webhooks').selectAll().where('id', '=', delivery.webhook_id).executeTakeFirst();
  const now = clock.now();
  const attempt = delivery.attempts + 1;
  let result: { ok: boolean; statusCode: number | null; latencyMs: number; error: string | null };
  if (!hook || hook.enabled !== 1) {
    result = { ok: false, statusCode: null, latencyMs: 0, error: hook ? 'webhook disabled' : 'webhook deleted' };
  } else {
    const secret = secrets.decrypt(hook.secret_enc);
    const timestamp = Math.floor(now / 1000);
    // webhook-id is the delivery id: stable across retries, so receivers can de-duplicate.
    result = await postJson(hook.url, delivery.payload, {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, delivery.id, timestamp, delivery.payload),
    }, policy);
  }
  const finished = clock.now();
  const gaveUp = !result.ok && (options.final || attempt >= MAX_ATTEMPTS || !hook || hook.enabled !== 1);
  const next: WebhookDeliveriesTable = {
    ...delivery,
    attempts: attempt,
    status: result.ok ? 'delivered' : gaveUp ? 'failed' : 'pending',
    next_attempt_at: result.ok || gaveUp ? null : finished + RETRY_SCHEDULE_MS[attempt - 1],
    last_status_code: result.statusCode,
    last_error: result.error,
    delivered_at: result.ok ? finished : null,
    updated_at: finished,
  };
  await store.db.transaction().execute(async (trx) => {
    await trx.insertInto('delivery_attempts').values({
      id: uuidv7(), site_id: delivery.site_id, delivery_id: delivery.id, attempt, status_code: result.statusCode,
      latency_ms: result.latencyMs, error: result.error, created_at: finished,
    }).execute();
    const { id, ...changes } = next;
    await trx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
  });
  return next;
}

export async function sendDueDeliveries(deps: DeliveryDeps): Promise<number> {
  const rows = (await claim(deps.store.db, deps.store.dialect, 'webhook_deliveries', deps.clock.now())) as unknown as WebhookDeliveriesTable[];
  // The claim moved next_attempt_at forward as a lease; the attempt sets the real next time.
  await Promise.all(rows.map((row) => attemptDelivery(deps, row)));
  return rows.length;
}

const NOTIFY_KINDS = ['notify.slack', 'notify.pagerduty', 'notify.email'];

/** Channel notifications: sent from their outbox row, retried on the same schedule. */
export async function sendDueNotifications(deps: DeliveryDeps): Promise<number> {
  const { store, clock } = deps;
  const rows = await claim(store.db, store.dialect, 'outbox', clock.now(), NOTIFY_KINDS);
  for (const row of rows) {
    const channel = String(row.kind).slice('notify.'.length);
    const payload = JSON.parse(String(row.payload)) as NotifyPayload;
    const result = await sendNotification(channel, payload, { db: store.db, secrets: deps.secrets, config: deps.config, policy: deps.policy });
    const now = clock.now();
    const attempt = Number(row.attempts) + 1;
    const gaveUp = !result.ok && (result.final || attempt >= MAX_ATTEMPTS);
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('delivery_attempts').values({
        id: uuidv7(), site_id: String(row.site_id), delivery_id: String(row.id), attempt, status_code: result.statusCode,
        latency_ms: result.latencyMs, error: result.error, created_at: now,
      }).execute();
      await trx.updateTable('outbox').set({
        attempts: attempt,
        status: result.ok ? 'done' : gaveUp ? 'failed' : 'pending',
        next_attempt_at: result.ok || gaveUp ? now : now + RETRY_SCHEDULE_MS[attempt - 1],
        processed_at: result.ok || gaveUp ? now : null,
      }).where('id', '=', String(row.id)).execute();
      const outcome = result.ok ? `${channel} notification sent (${payload.event})` : gaveUp
        ? `${channel} notification failed: ${result.error}` : `${channel} notification attempt ${attempt} failed (${result.error}); retrying`;
      await trx.insertInto('alert_timeline').values({
        id: uuidv7(), alert_id: payload.alert_id, kind: result.ok ? 'notification_sent' : 'notification_failed', message: outcome,
        details: JSON.stringify({ channel, attempt, status_code: result.statusCode, latency_ms: result.latencyMs, error: result.error }), created_at: now,
      }).execute();
    });
  }
  return rows.length;
}

export async function runDeliveryOnce(deps: DeliveryDeps) {
  const fannedOut = await fanOutEvents(deps);
  const sent = await sendDueDeliveries(deps);
  const notified = await sendDueNotifications(deps);
  return { fannedOut, sent, notified };
}

export function startDeliveryWorker(deps: DeliveryDeps, log: { error(o: object, m: string): void }, intervalMs = 1000): Periodic {
  return runPeriodically(intervalMs, () => runDeliveryOnce(deps), (err) => log.error({ err }, 'delivery failed'));
}
