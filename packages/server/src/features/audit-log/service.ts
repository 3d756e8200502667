// Reading the audit log: the caller's org only, newest first, filtered and paged.
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { siteInScope } from '../../domain/tenancy.ts';
import type { AuditEntry, AuditLogQuery } from './schemas.ts';

function instant(value: string | undefined, field: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidInput(field, 'must be an ISO 8601 time');
  return ms;
}

export async function readAuditLog({ ctx, input }: { ctx: ServiceContext; input: AuditLogQuery }) {
  const site = input.site_id ? await siteInScope(ctx, input.site_id) : null;
  const from = instant(input.from, 'from');
  const to = instant(input.to, 'to');
  if (from !== null && to !== null && to <= from) throw invalidInput('to', 'must be after from');
  const offset = input.offset ?? 0;
  const limit = input.limit ?? 50;

  let query = ctx.db.selectFrom('audit_log').where('org_id', '=', ctx.auth.org.id);
  if (site) query = query.where('site_id', '=', site.id);
  if (input.actor) query = query.where('actor_id', '=', input.actor);
  if (input.action?.endsWith('.*')) query = query.where('action', 'like', `${input.action.slice(0, -1)}%`);
  else if (input.action) query = query.where('action', '=', input.action);
  if (input.target) query = query.where('target_id', '=', input.target);
  if (from !== null) query = query.where('created_at', '>=', from);
  if (to !== null) query = query.where('created_at', '<', to);

  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  const entries: AuditEntry[] = rows.map((row) => ({
    id: row.id,
    created_at: iso(row.created_at),
    actor_type: row.actor_type as AuditEntry['actor_type'],
    actor_id: row.actor_id,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    site_id: row.site_id,
    request_id: row.request_id,
    ip: row.ip,
    details: row.details ? JSON.parse(row.details) as Record<string, unknown> : null,
  }));
  return { entries, total: Number(count.n), offset, limit };
}
