// What /metrics says about the delivery queues, read from the store at each scrape, so the API
// process reports what a separate `mallard worker` is (or is not) doing. Every count is one
// range of the (status, next_attempt_at) index that both queues have.
import type { Kysely } from 'kysely';
import { JOBS, type JobKind } from '../events/jobs.ts';
import type { Database } from '../store/tables.ts';

/** The channel a job kind sends through: webhook, slack, pagerduty, email (event: the local fan-out). */
export const channelOf = (kind: string) => (kind === 'webhook.delivery' ? 'webhook' : kind.replace(/^notify\./, ''));

/** Every channel a send goes out on (the catalog's kinds that are not local), reported even at 0. */
export const DELIVERY_CHANNELS = (Object.keys(JOBS) as JobKind[]).filter((kind) => !('local' in JOBS[kind])).map(channelOf);

/** A scrape counts at most this many due rows per queue, so a huge backlog costs no more than this. */
export const BACKLOG_COUNT_CAP = 100_000;

/** Rows due now and not yet sent (status pending, next attempt time passed), per queue, each up to the cap. */
export async function dueBacklog(db: Kysely<Database>, now: number): Promise<{ outbox: number; webhook_deliveries: number }> {
  const count = async (table: 'outbox' | 'webhook_deliveries') => {
    const due = db.selectFrom(table).select('id').where('status', '=', 'pending').where('next_attempt_at', '<=', now).limit(BACKLOG_COUNT_CAP);
    const row = await db.selectFrom(due.as('due')).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  };
  const [outbox, webhookDeliveries] = await Promise.all([count('outbox'), count('webhook_deliveries')]);
  return { outbox, webhook_deliveries: webhookDeliveries };
}

/** Jobs that gave up after their last retry (status failed) and are still held, by channel; 0 for a channel with none. */
export async function failedByChannel(db: Kysely<Database>): Promise<Record<string, number>> {
  const [notifications, webhooks] = await Promise.all([
    db.selectFrom('outbox').select(['kind', (eb) => eb.fn.countAll().as('n')]).where('status', '=', 'failed').groupBy('kind').execute(),
    db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'failed').executeTakeFirst(),
  ]);
  const counts: Record<string, number> = Object.fromEntries(DELIVERY_CHANNELS.map((channel) => [channel, 0]));
  for (const row of notifications) counts[channelOf(row.kind)] = (counts[channelOf(row.kind)] ?? 0) + Number(row.n);
  counts.webhook += Number(webhooks?.n ?? 0);
  return counts;
}
