// A site's alerts, most recently fired first, as the query API lists them.
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { alertsWithRuleName, toAlertRecord } from '../../domain/records/alert.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { ListAlertsQuery } from './schemas.ts';

export async function listAlerts({ ctx, input }: { ctx: ServiceContext; input: ListAlertsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const { status, offset = 0, limit = 50 } = input;
  return cachedRead(ctx, ['alerts', site.id, input], async () => {
    let filtered = ctx.db.selectFrom('alerts').where('site_id', '=', site.id);
    let rows = alertsWithRuleName(ctx.db).where('alerts.site_id', '=', site.id);
    if (status) {
      filtered = filtered.where('status', '=', status);
      rows = rows.where('alerts.status', '=', status);
    }
    const [alerts, count] = await Promise.all([
      rows.orderBy('alerts.fired_at', 'desc').orderBy('alerts.id', 'desc').limit(limit).offset(offset).execute(),
      filtered.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { alerts: alerts.map(toAlertRecord), total: Number(count.n), offset, limit };
  });
}
