// The delivery worker: one loop over the queues' due jobs (the outbox first, so an event's
// deliveries go out in the same run), and one path that runs a job and records the attempt.
// At-least-once: a job is marked done only after its send is recorded.
import { v7 as uuidv7 } from 'uuid';
import { JOBS, type JobKind } from '../events/jobs.ts';
import type { Transaction } from 'kysely';
import type { Database, WebhookDeliveriesTable } from '../store/tables.ts';
import { jobFailure, runPeriodically, type Periodic } from '../jobs/periodic.ts';
import { HANDLERS, invalidJob, LOCAL_DONE, type Attempt, type DeliveryDeps, type JobMap, type Outcome } from './handlers.ts';
import { outbox, webhookDeliveries, type Claimed, type Queue } from './queues.ts';


type Row = { id: string; site_id: string | null; attempts: number };

/** Runs the job a row holds and records the attempt; returns the row as it now stands.
 * `final`: a failure is not retried (a test send). */
async function runJob<R extends Row>(deps: DeliveryDeps, queue: Queue<R>, row: R, claimed: Claimed, options: { final?: boolean } = {}): Promise<R> {
  if ('error' in claimed) return recordAttempt(deps, queue, row, invalidJob(claimed.error), { logged: true, retryAfterMs: [] });
  return runClaimed(deps, queue, row, claimed.kind, claimed.job, options);
}

// Generic in the kind, so the handler looked up and the job handed to it agree.
async function runClaimed<R extends Row, K extends JobKind>(deps: DeliveryDeps, queue: Queue<R>, row: R, kind: K, job: JobMap[K], options: { final?: boolean }): Promise<R> {
  const spec = JOBS[kind];
  const handler = HANDLERS[kind];
  // A local job has nothing to send: it succeeds by committing its record, or throws and
  // rolls back, to be claimed again when its lease runs out.
  const outcome = handler.send && 'timeoutMs' in spec ? await handler.send(job, deps, spec.timeoutMs) : LOCAL_DONE;
  const retryAfterMs = 'retryAfterMs' in spec && !options.final ? spec.retryAfterMs : [];
  return recordAttempt(deps, queue, row, outcome, { logged: handler.send !== undefined, retryAfterMs, record: (trx, attempt) => handler.record?.(trx, job, attempt) });
}

/** The one attempt bookkeeping: the attempt log (`logged`: sends, and jobs that could not be
 * read), the row's new state and the kind's own record, in one transaction. */
async function recordAttempt<R extends Row>(deps: DeliveryDeps, queue: Queue<R>, row: R, outcome: Outcome, how: {
  logged: boolean; retryAfterMs: readonly number[]; record?: (trx: Transaction<Database>, attempt: Attempt) => Promise<void> | undefined;
}): Promise<R> {
  const at = deps.clock.now();
  const number = row.attempts + 1;
  const gaveUp = !outcome.ok && (outcome.final === true || number > how.retryAfterMs.length);
  const attempt: Attempt = {
    number, outcome, at, state: outcome.ok ? 'succeeded' : gaveUp ? 'failed' : 'retrying',
    nextAttemptAt: outcome.ok || gaveUp ? null : at + how.retryAfterMs[number - 1],
  };
  return deps.store.db.transaction().execute(async (trx) => {
    if (how.logged) {
      await trx.insertInto('delivery_attempts').values({
        id: uuidv7(), site_id: row.site_id ?? '', delivery_id: row.id, attempt: number, status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs, error: outcome.error, created_at: at,
      }).execute();
    }
    const next = await queue.save(trx, row, attempt);
    await how.record?.(trx, attempt);
    return next;
  });
}

/** Claims a queue's due rows (of these kinds) and runs them; returns the kinds run. */
async function runDue<R extends Row>(deps: DeliveryDeps, queue: Queue<R>, kinds?: readonly JobKind[]): Promise<string[]> {
  const rows = await queue.claim(deps.store.db, deps.store.dialect, deps.clock.now(), deps.config.deliveryLeaseMs, kinds);
  const claimed = rows.map((row) => ({ row, claimed: queue.read(row) }));
  const run = ({ row, claimed: c }: (typeof claimed)[number]) => runJob(deps, queue, row, c);
  if (queue.concurrent) {
    await Promise.all(claimed.map(run));
    return claimed.map(({ claimed: c }) => ('error' in c ? 'invalid' : c.kind));
  }
  // One after another, a row may wait longer than its lease (20 slow emails): each renews its
  // lease before it runs, and is left alone if another worker claimed it meanwhile.
  const ran: string[] = [];
  for (const item of claimed) {
    const row = await queue.renew(deps.store.db, item.row, deps.clock.now(), deps.config.deliveryLeaseMs);
    if (!row) continue;
    await run({ row, claimed: item.claimed });
    ran.push('error' in item.claimed ? 'invalid' : item.claimed.kind);
  }
  return ran;
}

/** Event rows only: each becomes one delivery per subscribed webhook. */
export async function fanOutEvents(deps: DeliveryDeps): Promise<number> {
  return (await runDue(deps, outbox, ['event'])).length;
}

/** A delivery sent now, outside the schedule (the manual retry and test routes). */
export async function sendDeliveryNow(deps: DeliveryDeps, delivery: WebhookDeliveriesTable, options: { final?: boolean } = {}): Promise<WebhookDeliveriesTable> {
  return runJob(deps, webhookDeliveries, delivery, webhookDeliveries.read(delivery), options);
}

export async function runDeliveryOnce(deps: DeliveryDeps) {
  const ran = [...await runDue(deps, outbox), ...await runDue(deps, webhookDeliveries)];
  return {
    fannedOut: ran.filter((k) => k === 'event').length,
    sent: ran.filter((k) => k === 'webhook.delivery').length,
    notified: ran.filter((k) => k.startsWith('notify.')).length,
  };
}

export function startDeliveryWorker(deps: DeliveryDeps, log: { error(o: object, m: string): void }, intervalMs = 1000): Periodic {
  return runPeriodically(intervalMs, () => runDeliveryOnce(deps), jobFailure(deps.store.faults, log, 'delivery failed'));
}
