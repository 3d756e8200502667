// Alerts: list and detail (with the incident timeline) on /query; the lifecycle on /manage.
import { Type } from '@sinclair/typebox';
import { v7 as uuidv7 } from 'uuid';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { iso, isoOrNull } from '../../clock.ts';
import { actorOf } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { PagingQuery } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { notify } from '../../pipeline/alert-step.ts';
import { toAlertRecord } from '../../domain/records/alert.ts';
import type { Store } from '../../store/db.ts';
import type { AlertsTable } from '../../store/tables.ts';
import type { AuthContext } from '../../domain/context.ts';
import { ALERT_STATUSES } from '../../domain/statuses.ts';

const Row = Type.Record(Type.String(), Type.Unknown());
const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

const alertQuery = (store: Store) => store.db.selectFrom('alerts').leftJoin('alert_rules', 'alert_rules.id', 'alerts.rule_id')
  .selectAll('alerts').select('alert_rules.name as rule_name');

/** An alert the credential may change: within its org, and its site for a site-scoped key. */
async function alertInScope(store: Store, auth: AuthContext, id: string) {
  let query = alertQuery(store).innerJoin('sites', 'sites.id', 'alerts.site_id')
    .where('alerts.id', '=', id.toLowerCase()).where('sites.org_id', '=', auth.org.id).where('sites.deleted_at', 'is', null);
  if (auth.site) query = query.where('alerts.site_id', '=', auth.site.id);
  const alert = await query.executeTakeFirst();
  if (!alert) throw new AppError('not_found', 'Alert not found');
  return alert;
}

export async function alertRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/alerts', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Alerts, most recently fired first',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })), status: Type.Optional(literals(ALERT_STATUSES)), ...PagingQuery }),
      response: { 200: Envelope(Type.Object({ alerts: Type.Array(Row), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const offset = request.query.offset ?? 0;
    const limit = request.query.limit ?? 50;
    let filtered = store.db.selectFrom('alerts').where('site_id', '=', site.id);
    let rows = alertQuery(store).where('alerts.site_id', '=', site.id);
    if (request.query.status) {
      filtered = filtered.where('status', '=', request.query.status);
      rows = rows.where('alerts.status', '=', request.query.status);
    }
    const [alerts, count] = await Promise.all([
      rows.orderBy('alerts.fired_at', 'desc').orderBy('alerts.id', 'desc').limit(limit).offset(offset).execute(),
      filtered.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok({ alerts: alerts.map(toAlertRecord), total: Number(count.n), offset, limit });
  });

  app.get('/query/alerts/:alert_id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One alert with its incident timeline',
      params: Type.Object({ alert_id: Type.String() }), querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(Type.Intersect([Row, Type.Object({ timeline: Type.Array(Row) })])) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const alert = await alertQuery(store).where('alerts.site_id', '=', site.id).where('alerts.id', '=', request.params.alert_id.toLowerCase()).executeTakeFirst();
    if (!alert) throw new AppError('not_found', 'Alert not found');
    const timeline = await store.db.selectFrom('alert_timeline').selectAll().where('alert_id', '=', alert.id).orderBy('created_at').orderBy('id').execute();
    return ok({
      ...toAlertRecord(alert),
      timeline: timeline.map((t) => ({ id: t.id, kind: t.kind, message: t.message, details: t.details ? JSON.parse(t.details) : null, created_at: iso(t.created_at) })),
    });
  });

  app.patch('/manage/alerts/:alert_id', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: {
      tags: ['alerts'], summary: 'Acknowledge, investigate or resolve an alert',
      params: Type.Object({ alert_id: Type.String() }),
      body: Type.Object({
        status: Type.Optional(literals(['acknowledged', 'investigating', 'resolved'] as const)),
        resolved_reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Envelope(Row) },
    },
  }, async (request) => {
    const auth = request.auth!;
    const { resolved_reason: reason } = request.body;
    const status = request.body.status as 'acknowledged' | 'investigating' | 'resolved' | undefined;
    if (reason !== undefined && status !== 'resolved') throw invalidInput('resolved_reason', 'goes only with status resolved');
    const alert = await alertInScope(store, auth, request.params.alert_id);
    const now = clock.now();
    const next: AlertsTable = { ...alert, updated_at: now };
    if (status === 'acknowledged') next.acknowledged_at = now;
    if (status === 'investigating') next.investigating_at = now;
    if (status === 'resolved') { next.resolved_at = now; next.resolved_reason = reason ?? null; }
    if (status) next.status = status;
    await store.db.transaction().execute(async (trx) => {
      const { id, site_id: _s, rule_name: _n, ...changes } = next as AlertsTable & { rule_name?: string | null };
      await trx.updateTable('alerts').set(changes).where('id', '=', id).execute();
      const who = actorOf(auth).label;
      await trx.insertInto('alert_timeline').values({
        id: uuidv7(), alert_id: alert.id, kind: status ?? 'updated',
        message: status === 'resolved' ? `Resolved by ${who}${reason ? `: ${reason}` : ''}` : `${status ?? 'Updated'} by ${who}`,
        details: null, created_at: now,
      }).execute();
      const rule = alert.rule_id ? await trx.selectFrom('alert_rules').select(['name', 'channels', 'slack_channel', 'config', 'trigger_type']).where('id', '=', alert.rule_id).executeTakeFirst() : undefined;
      if (rule && status) await notify(trx, rule, next, status, now);
      await recordAudit(trx, auth, { action: 'alert.updated', targetType: 'alert', targetId: alert.id, siteId: alert.site_id, details: { status } }, now);
    });
    return ok(toAlertRecord(next));
  });
}
