// One alert with its incident timeline.
import { iso } from '../../clock.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { alertsWithRuleName, toAlertRecord } from '../../domain/records/alert.ts';
import { resolveSite } from '../../domain/tenancy.ts';

export async function alertDetail({ ctx, input }: { ctx: ServiceContext; input: { alert_id: string; site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['alert', site.id, input], async () => {
    const alert = await alertsWithRuleName(ctx.db).where('alerts.site_id', '=', site.id).where('alerts.id', '=', input.alert_id.toLowerCase()).executeTakeFirst();
    if (!alert) throw new AppError('not_found', 'Alert not found');
    const timeline = await ctx.db.selectFrom('alert_timeline').selectAll().where('alert_id', '=', alert.id).orderBy('created_at').orderBy('id').execute();
    return {
      ...toAlertRecord(alert),
      timeline: timeline.map((t) => ({ id: t.id, kind: t.kind, message: t.message, details: t.details ? JSON.parse(t.details) : null, created_at: iso(t.created_at) })),
    };
  });
}
