// Everything sent to the outside world starts as an outbox row written in the same
// transaction as the change that causes it; the delivery worker sends it after commit.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';

export const EVENT_TYPES = [
  'issue.created', 'issue.updated', 'issue.regressed', 'issue.verified',
  'alert.fired', 'alert.acknowledged', 'alert.investigating', 'alert.resolved',
  'deploy.recorded', 'score.spike',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Queues one event `{ type, timestamp, site_id, data }` for delivery. */
export async function queueEvent(trx: Kysely<Database>, siteId: string, type: EventType, data: unknown, now: number) {
  const id = uuidv7();
  await trx.insertInto('outbox').values({
    id, site_id: siteId, kind: 'event',
    payload: JSON.stringify({ type, timestamp: new Date(now).toISOString(), site_id: siteId, data }),
    status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, processed_at: null,
  }).execute();
  return id;
}
