// Every manage write leaves one audit row in the same transaction as the change.
// Rows name the actor, the target, the request id and the acting client's address (an
// operator's, never an end user's); never a key, password or secret.
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { actorOf, type ServiceContext } from '../domain/context.ts';
import type { Database } from '../store/tables.ts';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  siteId?: string | null;
  details?: Record<string, unknown>;
}

/** What an audit row takes from the service context. */
export type AuditContext = Pick<ServiceContext, 'auth' | 'now'> & Partial<Pick<ServiceContext, 'requestId' | 'ip'>>;

export async function recordAudit(trx: Kysely<Database>, ctx: AuditContext, entry: AuditEntry) {
  const { auth, now } = ctx;
  const actor = actorOf(auth);
  await trx.insertInto('audit_log').values({
    id: uuidv7(),
    org_id: auth.org.id,
    site_id: entry.siteId ?? null,
    actor_type: actor.type,
    actor_id: actor.id,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    details: entry.details ? JSON.stringify(entry.details) : null,
    created_at: now,
    request_id: ctx.requestId ?? null,
    ip: ctx.ip ?? null,
  }).execute();
}
