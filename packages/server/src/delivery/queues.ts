// Where jobs wait: the outbox, and webhook_deliveries (one row per event and webhook, which
// the API lists with its attempt log). Each queue claims its due rows, reads a row back into
// a checked job of the catalog, and writes an attempt's outcome onto the row.
import type { Kysely, Transaction } from 'kysely';
import { isJobKind, JOBS, OUTBOX_KINDS, readPayload, type JobKind } from '../events/jobs.ts';
import type { Dialect } from '../store/db.ts';
import type { Database, OutboxTable, WebhookDeliveriesTable } from '../store/tables.ts';
import type { Attempt, JobMap } from './handlers.ts';

const BATCH = 20;

/** A row read back: the job it holds, or why it holds none. */
export type Claimed = { [K in JobKind]: { kind: K; job: JobMap[K] } }[JobKind] | { error: string };

export interface Queue<R extends { id: string; site_id: string | null; attempts: number }> {
  /** Due rows, each claimed with a lease of `leaseMs` (pushing its next attempt time forward;
   * SKIP LOCKED on PostgreSQL), so two workers never run the same row at once and a crash only
   * delays it. */
  claim(db: Kysely<Database>, dialect: Dialect, now: number, leaseMs: number, kinds?: readonly JobKind[]): Promise<R[]>;
  /** A fresh lease on a row this worker claimed, or null when its lease ran out and another
   * worker has claimed it since (the row's next attempt time is no longer the one we set). */
  renew(db: Kysely<Database>, row: R, now: number, leaseMs: number): Promise<R | null>;
  read(row: R): Claimed;
  save(trx: Transaction<Database>, row: R, attempt: Attempt): Promise<R>;
  /** Rows claimed together run at once, or one after another. */
  concurrent: boolean;
}

async function claim(db: Kysely<Database>, dialect: Dialect, table: 'outbox' | 'webhook_deliveries', now: number, leaseMs: number, kinds?: readonly string[]) {
  // Both tables share id, status and next_attempt_at; the name comes from the union above.
  const d = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  let due = d.selectFrom(table).select('id').where('status', '=', 'pending').where('next_attempt_at', '<=', now);
  if (kinds) due = due.where('kind', 'in', kinds);
  due = due.orderBy('next_attempt_at').limit(BATCH);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return d.updateTable(table).set({ next_attempt_at: now + leaseMs }).where('id', 'in', due).returningAll().execute();
}

async function renew<R extends { id: string; next_attempt_at: number | null }>(db: Kysely<Database>, table: 'outbox' | 'webhook_deliveries', row: R, now: number, leaseMs: number): Promise<R | null> {
  const d = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const next = now + leaseMs;
  const renewed = await d.updateTable(table).set({ next_attempt_at: next })
    .where('id', '=', row.id).where('status', '=', 'pending').where('next_attempt_at', '=', row.next_attempt_at)
    .executeTakeFirst();
  return Number(renewed.numUpdatedRows) === 1 ? { ...row, next_attempt_at: next } : null;
}

export const outbox: Queue<OutboxTable> = {
  // Only the kinds this worker knows: a newer one waits for a worker that does.
  claim: async (db, dialect, now, leaseMs, kinds = OUTBOX_KINDS) => (await claim(db, dialect, 'outbox', now, leaseMs, kinds)) as unknown as OutboxTable[],
  renew: (db, row, now, leaseMs) => renew(db, 'outbox', row, now, leaseMs),
  read(row) {
    if (!isJobKind(row.kind) || JOBS[row.kind].queue !== 'outbox') return { error: `unknown job kind ${row.kind}` };
    if (row.site_id === null) return { error: 'invalid job: no site' };
    const read = readPayload(row.kind, row.payload);
    if (!read.ok) return { error: read.error };
    // Checked above; TypeScript cannot pair a kind known only at run time with its payload type.
    return { kind: row.kind, job: { kind: row.kind, siteId: row.site_id, payload: read.payload, row } } as Claimed;
  },
  async save(trx, row, { number, at, state, nextAttemptAt }) {
    const changes = {
      attempts: number, status: state === 'succeeded' ? 'done' : state === 'failed' ? 'failed' : 'pending',
      next_attempt_at: nextAttemptAt ?? at, processed_at: nextAttemptAt === null ? at : null,
    };
    await trx.updateTable('outbox').set(changes).where('id', '=', row.id).execute();
    return { ...row, ...changes };
  },
  concurrent: false, // a burst of notifications does not hit one Slack channel all at once
};

export const webhookDeliveries: Queue<WebhookDeliveriesTable> = {
  claim: async (db, dialect, now, leaseMs) => (await claim(db, dialect, 'webhook_deliveries', now, leaseMs)) as unknown as WebhookDeliveriesTable[],
  renew: (db, row, now, leaseMs) => renew(db, 'webhook_deliveries', row, now, leaseMs),
  read(row) {
    const read = readPayload('webhook.delivery', row.payload);
    if (!read.ok) return { error: read.error };
    return { kind: 'webhook.delivery', job: { kind: 'webhook.delivery', siteId: row.site_id, payload: read.payload, row } };
  },
  async save(trx, row, { number, outcome, at, state, nextAttemptAt }) {
    const changes = {
      attempts: number, status: state === 'succeeded' ? 'delivered' : state === 'failed' ? 'failed' : 'pending',
      next_attempt_at: nextAttemptAt, last_status_code: outcome.statusCode, last_error: outcome.error,
      delivered_at: outcome.ok ? at : null, updated_at: at,
    };
    await trx.updateTable('webhook_deliveries').set(changes).where('id', '=', row.id).execute();
    return { ...row, ...changes };
  },
  concurrent: true, // deliveries due together go out together (docs/webhooks.md)
};
