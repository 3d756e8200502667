// Every manage write leaves one audit row in the same transaction as the change; sign-ins,
// sign-outs, invitation redemptions and bulk reads (the events export, raw tables) leave one
// row too. Rows name the actor, the target, the request id and the acting client's address (an
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

/** A row for a call with no authenticated caller yet (a sign-in): the org and actor named outright. */
export interface AuditOrigin {
  orgId: string;
  actor: { type: 'user' | 'key' | 'system'; id: string | null };
  now: number;
  requestId?: string;
  ip?: string;
}

export async function recordAudit(trx: Kysely<Database>, ctx: AuditContext, entry: AuditEntry) {
  const actor = actorOf(ctx.auth);
  if (ctx.auth.kind === 'operator') {
    // The operator's rows (the CLI, actor 'system') come from no request and say where they came from.
    await recordAuditAs(trx, { orgId: ctx.auth.org.id, actor, now: ctx.now }, { ...entry, details: { ...entry.details, via: 'cli' } });
    return;
  }
  await recordAuditAs(trx, { orgId: ctx.auth.org.id, actor, now: ctx.now, requestId: ctx.requestId, ip: ctx.ip }, entry);
}

export async function recordAuditAs(trx: Kysely<Database>, origin: AuditOrigin, entry: AuditEntry) {
  await trx.insertInto('audit_log').values({
    id: uuidv7(),
    org_id: origin.orgId,
    site_id: entry.siteId ?? null,
    actor_type: origin.actor.type,
    actor_id: origin.actor.id,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    details: entry.details ? JSON.stringify(entry.details) : null,
    created_at: origin.now,
    request_id: origin.requestId ?? null,
    ip: origin.ip ?? null,
  }).execute();
}
