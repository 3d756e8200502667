// The alert lifecycle a person drives: acknowledge, investigate, resolve. The change, its
// timeline entry, its notifications and the audit row are written in one transaction.
import { v7 as uuidv7 } from 'uuid';
import { recordAudit } from '../../audit/record.ts';
import { actorOf, type ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { toAlertRecord } from '../../domain/records/alert.ts';
import { rowInTenant } from '../../domain/tenancy.ts';
import { notify } from '../../events/alert-notifications.ts';
import type { AlertsTable } from '../../store/tables.ts';
import type { UpdateAlertBody } from './schemas.ts';

export async function updateAlert({ ctx, input }: { ctx: ServiceContext; input: UpdateAlertBody & { alert_id: string } }) {
  return (await applyAlertUpdate({ ctx, input })).alert;
}

/**
 * `repeatIsNoop`: a status the alert already has (with the same resolved_reason, if any) changes
 * nothing: no timeline entry, no second notification to the rule's channels (a retried call,
 * e.g. an assistant's tool call sent twice); `unchanged` says so.
 */
export async function applyAlertUpdate({ ctx, input, repeatIsNoop = false }: { ctx: ServiceContext; input: UpdateAlertBody & { alert_id: string }; repeatIsNoop?: boolean }) {
  const { auth, now } = ctx;
  const { status, resolved_reason: reason } = input;
  // A contradiction in the body is bad input wherever the alert is.
  if (reason !== undefined && status !== 'resolved') throw invalidInput('resolved_reason', 'goes only with status resolved');
  const alert = await rowInTenant(ctx, 'alerts', input.alert_id, 'Alert');
  if (repeatIsNoop && status === alert.status && (reason === undefined || reason === alert.resolved_reason)) {
    const rule = alert.rule_id ? await ctx.db.selectFrom('alert_rules').select('name').where('id', '=', alert.rule_id).executeTakeFirst() : undefined;
    return { alert: toAlertRecord({ ...alert, rule_name: rule?.name ?? null }), unchanged: true };
  }
  const next: AlertsTable = { ...alert, updated_at: now };
  if (status === 'acknowledged') next.acknowledged_at = now;
  if (status === 'investigating') next.investigating_at = now;
  if (status === 'resolved') { next.resolved_at = now; next.resolved_reason = reason ?? null; }
  if (status) next.status = status;
  const rule = await ctx.db.transaction().execute(async (trx) => {
    const { id, site_id: _siteId, ...changes } = next;
    await trx.updateTable('alerts').set(changes).where('id', '=', id).execute();
    const who = actorOf(auth).label;
    await trx.insertInto('alert_timeline').values({
      id: uuidv7(), alert_id: alert.id, kind: status ?? 'updated',
      message: status === 'resolved' ? `Resolved by ${who}${reason ? `: ${reason}` : ''}` : `${status ?? 'Updated'} by ${who}`,
      details: null, created_at: now,
    }).execute();
    const rule = alert.rule_id ? await trx.selectFrom('alert_rules').select(['name', 'channels', 'slack_channel', 'config', 'trigger_type']).where('id', '=', alert.rule_id).executeTakeFirst() : undefined;
    if (rule && status) await notify(trx, rule, next, status, now);
    await recordAudit(trx, ctx, { action: 'alert.updated', targetType: 'alert', targetId: alert.id, siteId: alert.site_id, details: { status } });
    return rule;
  });
  return { alert: toAlertRecord({ ...next, rule_name: rule?.name ?? null }), unchanged: false };
}
