// The alert operations: the list, one alert with its incident timeline, and the lifecycle (as
// the route answers it, and as an assistant retries it).
import { Type } from '@sinclair/typebox';
import { defineOperation, READ_ACCESS, WRITE_ACCESS } from '../../domain/operation.ts';
import { alertDetail } from './alert-detail.ts';
import { listAlerts } from './alert-list.ts';
import { AlertDetail, AlertList, AlertRecord, AlertParams, ListAlertsQuery, SiteQuery, UpdateAlertBody } from './schemas.ts';
import { applyAlertUpdate, updateAlert } from './service.ts';

export const listAlertsOp = defineOperation({
  name: 'alerts.list',
  summary: 'Alerts, most recently fired first',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/alerts', surface: 'query', tags: ['query'] },
  input: { query: ListAlertsQuery },
  output: AlertList,
  run: (ctx, input) => listAlerts({ ctx, input }),
});

export const alertDetailOp = defineOperation({
  name: 'alerts.get',
  summary: 'One alert with its incident timeline',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/alerts/:alert_id', surface: 'query', tags: ['query'] },
  input: { params: AlertParams, query: SiteQuery },
  output: AlertDetail,
  run: (ctx, input) => alertDetail({ ctx, input }),
});

export const updateAlertOp = defineOperation({
  name: 'alerts.update',
  summary: 'Acknowledge, investigate or resolve an alert',
  access: WRITE_ACCESS,
  http: { method: 'PATCH', path: '/manage/alerts/:alert_id', surface: 'manage', tags: ['alerts'] },
  input: { params: AlertParams, body: UpdateAlertBody },
  output: AlertRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateAlert({ ctx, input }),
});

const Written = Type.Object({
  status: Type.Optional(Type.String()),
  resolved_reason: Type.Optional(Type.String()),
  unchanged: Type.Boolean({ description: 'true: the alert already had this status (a retried call): nothing was written and no one was told again' }),
}, { description: 'What this call wrote' });

/** The lifecycle as an assistant retries it: a repeated status is a no-op, and the answer says what was written (the MCP tool update_alert). */
export const moveAlertOp = defineOperation({
  name: 'alerts.move',
  summary: 'Acknowledge, investigate or resolve an alert; a repeat changes nothing; answers the alert and what this call wrote',
  access: WRITE_ACCESS,
  input: { params: AlertParams, body: UpdateAlertBody },
  output: Type.Composite([AlertRecord, Type.Object({ written: Written })]),
  write: { idempotent: true },
  run: async (ctx, input) => {
    const { alert, unchanged } = await applyAlertUpdate({ ctx, input, repeatIsNoop: true });
    return {
      ...alert,
      written: { ...(input.status !== undefined ? { status: input.status } : {}), ...(input.resolved_reason !== undefined ? { resolved_reason: input.resolved_reason } : {}), unchanged },
    };
  },
});

export const ALERT_OPERATIONS = [listAlertsOp, alertDetailOp, updateAlertOp, moveAlertOp];
