// The job catalog: every kind of work the delivery worker does after commit, with the payload
// it carries (checked when read back, never cast), how its failures are retried and how long
// one attempt may take. `enqueue` is the only way a job is written, and it takes the
// transaction of the change that causes the job, so a rolled-back change sends nothing.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { v7 as uuidv7 } from 'uuid';
import type { Transaction } from 'kysely';
import { iso } from '../clock.ts';
import type { Database } from '../store/tables.ts';

export const EVENT_TYPES = [
  'issue.created', 'issue.updated', 'issue.regressed', 'issue.verified',
  'alert.fired', 'alert.acknowledged', 'alert.investigating', 'alert.resolved',
  'deploy.recorded', 'score.spike',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Waits after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then failed. */
export const RETRY_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** One outbound HTTP request: a 2xx within this time, or the attempt failed. */
export const SEND_TIMEOUT_MS = 10_000;
/** One email: connecting, the greeting and each read or write of the SMTP conversation. */
const EMAIL_TIMEOUT_MS = 30_000;

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

/** A webhook event as receivers get it. */
const eventOf = <T extends TSchema>(type: T) => Type.Object({ type, timestamp: Type.String(), site_id: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) });
const Event = eventOf(literals(EVENT_TYPES));
/** A signed delivery's body: an event, or the test event the test route sends. */
const DeliveryBody = eventOf(Type.Union([literals(EVENT_TYPES), Type.Literal('webhook.test')]));
export const ALERT_NOTIFY_EVENTS = ['fired', 'acknowledged', 'investigating', 'resolved'] as const;
/** An alert notification on a channel; the alert itself is read at send time. */
const Notification = Type.Object({
  alert_id: Type.String(), event: literals(ALERT_NOTIFY_EVENTS),
  slack_channel: Type.Union([Type.String(), Type.Null()]), recipients: Type.Union([Type.Array(Type.String()), Type.Null()]),
});

/** Work in our own store, done in one transaction with marking the job done: it commits or
 * rolls back, and a rolled-back job is claimed again when its lease runs out. */
interface LocalJob { payload: TSchema; queue: 'outbox'; local: true }
/** A send to the outside world: every attempt is logged; a failed one is retried after the
 * waits of `retryAfterMs` in turn, then the job is failed. One attempt takes at most `timeoutMs`. */
interface SendJob { payload: TSchema; queue: 'outbox' | 'webhook_deliveries'; retryAfterMs: readonly number[]; timeoutMs: number }

const send = { retryAfterMs: RETRY_SCHEDULE_MS, timeoutMs: SEND_TIMEOUT_MS };

export const JOBS = {
  /** An event: fanned out into one `webhook.delivery` per enabled webhook subscribed to its type. */
  event: { queue: 'outbox', payload: Event, local: true },
  'notify.slack': { queue: 'outbox', payload: Notification, ...send },
  'notify.pagerduty': { queue: 'outbox', payload: Notification, ...send },
  'notify.email': { queue: 'outbox', payload: Notification, ...send, timeoutMs: EMAIL_TIMEOUT_MS },
  /** One signed POST to one webhook; a row of `webhook_deliveries`, which the API lists. */
  'webhook.delivery': { queue: 'webhook_deliveries', payload: DeliveryBody, ...send },
} as const satisfies Record<string, LocalJob | SendJob>;

export type JobKind = keyof typeof JOBS;
export type Payload<K extends JobKind> = Static<(typeof JOBS)[K]['payload']>;
type OutboxKind = { [K in JobKind]: (typeof JOBS)[K]['queue'] extends 'outbox' ? K : never }[JobKind];
export const OUTBOX_KINDS = (Object.keys(JOBS) as JobKind[]).filter((k): k is OutboxKind => JOBS[k].queue === 'outbox');

/** A job to write: where it belongs and what it carries. A delivery also names its webhook and
 * event; a `held` one is sent by its writer at once (the test route), so no worker claims it. */
export type NewJob<K extends JobKind = JobKind> = K extends 'webhook.delivery'
  ? { kind: K; siteId: string; payload: Payload<K>; webhookId: string; eventId: string; held?: true }
  : K extends JobKind ? { kind: K; siteId: string; payload: Payload<K> } : never;

/** The job of one webhook event: `{ type, timestamp, site_id, data }`. */
export const eventJob = (siteId: string, type: EventType, data: Payload<'event'>['data'], now: number): NewJob<'event'> =>
  ({ kind: 'event', siteId, payload: { type, timestamp: iso(now), site_id: siteId, data } });

/** Writes a job, due now (unless held), in the transaction of the change that causes it; returns its id. */
export async function enqueue(trx: Transaction<Database>, job: NewJob, now: number): Promise<string> {
  const id = uuidv7();
  const payload = JSON.stringify(job.payload);
  if (job.kind === 'webhook.delivery') {
    await trx.insertInto('webhook_deliveries').values({
      id, webhook_id: job.webhookId, site_id: job.siteId, event_type: job.payload.type, event_id: job.eventId, payload,
      status: 'pending', attempts: 0, next_attempt_at: job.held ? null : now, last_status_code: null, last_error: null,
      created_at: now, updated_at: now, delivered_at: null,
    }).execute();
  } else {
    await trx.insertInto('outbox').values({
      id, site_id: job.siteId, kind: job.kind, payload,
      status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, processed_at: null,
    }).execute();
  }
  return id;
}

/** A stored payload checked against its kind's schema: the payload, or why it is not one. */
export function readPayload<K extends JobKind>(kind: K, text: string): { ok: true; payload: Payload<K> } | { ok: false; error: string } {
  let value: unknown;
  try { value = JSON.parse(text); } catch { return { ok: false, error: 'invalid payload: not JSON' }; }
  const schema = JOBS[kind].payload;
  if (Value.Check(schema, value)) return { ok: true, payload: value as Payload<K> };
  const first = Value.Errors(schema, value).First();
  return { ok: false, error: `invalid payload: ${first ? `${first.path || '/'} ${first.message}` : 'does not match'}` };
}

export const isJobKind = (kind: string): kind is JobKind => Object.hasOwn(JOBS, kind);
