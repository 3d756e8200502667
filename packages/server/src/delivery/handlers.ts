// How each kind of the job catalog is done. A send job's `send` runs outside any transaction
// and reports an outcome; `record` writes what goes with the outcome, in the transaction that
// records it. A local job (an event's fan-out) only records.
import { v7 as uuidv7 } from 'uuid';
import type { Transaction } from 'kysely';
import type { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { JOBS, type JobKind, type Payload } from '../events/jobs.ts';
import type { Store } from '../store/db.ts';
import type { Database, OutboxTable, WebhookDeliveriesTable } from '../store/tables.ts';
import { sendNotification, type Channel } from './channels.ts';
import type { SendResult } from './http-post.ts';
import type { TargetPolicy } from './targets.ts';
import { fanOut, sendToWebhook } from './webhooks.ts';

export interface DeliveryDeps { store: Store; secrets: Secrets; clock: Clock; policy: TargetPolicy; config: Config }

/** What one attempt came to; `final` failures are not retried (nothing to send to, say). */
export type Outcome = SendResult & { final?: boolean };

/** A claimed job: its kind, its checked payload and the row it waits in. */
export interface Job<K extends JobKind> {
  kind: K;
  siteId: string;
  payload: Payload<K>;
  row: (typeof JOBS)[K]['queue'] extends 'outbox' ? OutboxTable : WebhookDeliveriesTable;
}
export type JobMap = { [K in JobKind]: Job<K> };

/** An attempt as recorded: its number, outcome and time, and when the job runs next (null: never). */
export interface Attempt { number: number; outcome: Outcome; at: number; state: 'succeeded' | 'retrying' | 'failed'; nextAttemptAt: number | null }

export interface Handler<J> {
  send?(job: J, deps: DeliveryDeps, timeoutMs: number): Promise<Outcome>;
  record?(trx: Transaction<Database>, job: J, attempt: Attempt): Promise<void>;
}
/** Local kinds record only; send kinds must send. */
type HandlerOf<K extends JobKind> = (typeof JOBS)[K] extends { local: true }
  ? { record(trx: Transaction<Database>, job: Job<K>, attempt: Attempt): Promise<void> }
  : { send(job: Job<K>, deps: DeliveryDeps, timeoutMs: number): Promise<Outcome>; record?(trx: Transaction<Database>, job: Job<K>, attempt: Attempt): Promise<void> };

/** A notification's attempt lands on the alert's timeline. */
const notification = (channel: Channel) => ({
  send: (job: Job<`notify.${Channel}`>, deps: DeliveryDeps, timeoutMs: number) =>
    sendNotification(channel, job.payload, { db: deps.store.db, secrets: deps.secrets, config: deps.config, policy: deps.policy }, timeoutMs),
  async record(trx: Transaction<Database>, job: Job<`notify.${Channel}`>, { number, outcome, at, state }: Attempt) {
    const message = state === 'succeeded' ? `${channel} notification sent (${job.payload.event})` : state === 'failed'
      ? `${channel} notification failed: ${outcome.error}` : `${channel} notification attempt ${number} failed (${outcome.error}); retrying`;
    await trx.insertInto('alert_timeline').values({
      id: uuidv7(), alert_id: job.payload.alert_id, kind: outcome.ok ? 'notification_sent' : 'notification_failed', message,
      details: JSON.stringify({ channel, attempt: number, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error }), created_at: at,
    }).execute();
  },
});

const HANDLERS_BY_KIND = {
  event: { record: (trx, job, { at }) => fanOut(trx, job.row.id, job.siteId, job.payload, at) },
  'notify.slack': notification('slack'),
  'notify.pagerduty': notification('pagerduty'),
  'notify.email': notification('email'),
  'webhook.delivery': { send: (job, deps, timeoutMs) => sendToWebhook(job.row, deps, timeoutMs) },
} satisfies { [K in JobKind]: HandlerOf<K> };

/** The same map, seen through the one shape the dispatch calls. */
export const HANDLERS: { [K in JobKind]: Handler<JobMap[K]> } = HANDLERS_BY_KIND;

/** For jobs whose payload fails its check: nothing is sent and the job fails at once. */
export const invalidJob = (error: string): Outcome => ({ ok: false, statusCode: null, latencyMs: 0, error, body: '', final: true });

export const LOCAL_DONE: Outcome = { ok: true, statusCode: null, latencyMs: 0, error: null, body: '' };
