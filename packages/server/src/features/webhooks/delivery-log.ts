// A webhook's deliveries, newest first, each with every attempt in the order it happened.
import { padInList } from '../../store/in-list.ts';
import type { Kysely } from 'kysely';
import { iso, isoOrNull } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { rowInTenant } from '../../domain/tenancy.ts';
import type { Database, DeliveryAttemptsTable, WebhookDeliveriesTable } from '../../store/tables.ts';
import type { ListDeliveriesQuery } from './schemas.ts';

/** The attempt log in the order it happened, numbered by position: a manual retry starts a
 * fresh series (stored attempt numbers restart at 1), yet the log keeps counting. */
const inOrder = (attempts: DeliveryAttemptsTable[]) => attempts.map((a, i) => ({ attempt: i + 1, status_code: a.status_code, latency_ms: a.latency_ms, error: a.error, at: iso(a.created_at) }));

const toDeliveryRecord = (d: WebhookDeliveriesTable, attempts: DeliveryAttemptsTable[]) => ({
  id: d.id, webhook_id: d.webhook_id, event_type: d.event_type, status: d.status, attempts: d.attempts,
  next_attempt_at: isoOrNull(d.next_attempt_at), last_status_code: d.last_status_code, last_error: d.last_error,
  delivered_at: isoOrNull(d.delivered_at), created_at: iso(d.created_at), updated_at: iso(d.updated_at),
  payload: JSON.parse(d.payload),
  attempt_log: inOrder(attempts),
});

const attemptsOf = (db: Kysely<Database>, deliveryIds: string[]) =>
  db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', padInList(deliveryIds)).orderBy('created_at').orderBy('id').execute();

/** One delivery as it now stands, with its attempt log. */
export async function deliveryRecord(db: Kysely<Database>, delivery: WebhookDeliveriesTable) {
  return toDeliveryRecord(delivery, await attemptsOf(db, [delivery.id]));
}

export async function listDeliveries({ ctx, input }: { ctx: ServiceContext; input: ListDeliveriesQuery & { id: string } }) {
  const hook = await rowInTenant(ctx, 'webhooks', input.id, 'Webhook');
  const { offset = 0, limit = 50 } = input;
  let query = ctx.db.selectFrom('webhook_deliveries').where('webhook_id', '=', hook.id);
  if (input.status) query = query.where('status', '=', input.status);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  const attempts = rows.length ? await attemptsOf(ctx.db, rows.map((r) => r.id)) : [];
  return { deliveries: rows.map((r) => toDeliveryRecord(r, attempts.filter((a) => a.delivery_id === r.id))), total: Number(count.n), offset, limit };
}
