// Every manage write leaves one audit row in the same transaction as the change.
// Rows name the actor and the target; they never hold a raw IP, key or password.
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { actorOf, type AuthContext } from '../domain/context.ts';
import type { Database } from '../store/tables.ts';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  siteId?: string | null;
  details?: Record<string, unknown>;
}

export async function recordAudit(trx: Kysely<Database>, auth: AuthContext, entry: AuditEntry, now: number) {
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
  }).execute();
}
