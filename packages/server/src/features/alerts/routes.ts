// Alerts: list and detail (with the incident timeline) on /query; the lifecycle on /manage.
import type { App } from '../../http/app-types.ts';
import { contextOf } from '../../http/context.ts';
import { Envelope, ok, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { alertDetail } from './alert-detail.ts';
import { listAlerts } from './alert-list.ts';
import { AlertDetail, AlertList, AlertRecord, AlertParams, ListAlertsQuery, SiteQuery, UpdateAlertBody } from './schemas.ts';
import { updateAlert } from './service.ts';

export async function alertRoutes(app: App) {
  app.get('/query/alerts', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Alerts, most recently fired first',
      querystring: ListAlertsQuery,
      response: { 200: Envelope(AlertList) },
    },
  }, async (request, reply) => okOnce(reply, await listAlerts({ ctx: contextOf(request), input: request.query })));

  app.get('/query/alerts/:alert_id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One alert with its incident timeline',
      params: AlertParams, querystring: SiteQuery,
      response: { 200: Envelope(AlertDetail) },
    },
  }, async (request, reply) => okOnce(reply, await alertDetail({ ctx: contextOf(request), input: { ...request.query, ...request.params } })));

  app.patch('/manage/alerts/:alert_id', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: {
      tags: ['alerts'], summary: 'Acknowledge, investigate or resolve an alert',
      params: AlertParams, body: UpdateAlertBody, response: { 200: Envelope(AlertRecord) },
    },
  }, async (request) => ok(await updateAlert({ ctx: contextOf(request), input: { ...request.body, ...request.params } })));
}
