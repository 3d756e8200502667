// Alerts: the list, one alert with its timeline, and the lifecycle (a write tool).
import { alertDetail } from '../../features/alerts/alert-detail.ts';
import { listAlerts } from '../../features/alerts/alert-list.ts';
import { updateAlert } from '../../features/alerts/service.ts';
import { AlertDetail, AlertList, AlertRecord, AlertParams, ListAlertsQuery, SiteQuery, UpdateAlertBody } from '../../features/alerts/schemas.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, lines, plural } from '../text.ts';

const alertLine = (a: Record<string, unknown>) =>
  `[${a.severity}] ${a.message} (${a.status}, fired ${a.fired_at}${a.rule_name ? `, rule ${a.rule_name}` : ''}; id ${a.id})`;

export const listAlertsTool = defineTool({
  name: 'list_alerts',
  title: 'Alerts',
  description: 'Alerts fired by the site\'s rules, most recently fired first; filter by status (active ones are fired, acknowledged and investigating).',
  input: { query: ListAlertsQuery },
  output: AlertList,
  links: [{ at: 'alerts[]', kind: 'alert' }],
  run: (ctx, input) => listAlerts({ ctx, input }),
  summarize: (d, input) => d.total === 0 ? `No alerts${input.status ? ` with status ${input.status}` : ''}.` : lines(
    `${plural(d.total, 'alert')}${input.status ? ` with status ${input.status}` : ''}; showing ${d.offset + 1} to ${d.offset + d.alerts.length}:`,
    bullets(d.alerts, alertLine, 'alerts on this page of results'),
  ),
});

export const getAlertTool = defineTool({
  name: 'get_alert',
  title: 'One alert',
  description: 'One alert with its incident timeline (fired, notified, acknowledged, resolved...), the scores before and after, and the breakdown that fired it.',
  input: { params: AlertParams, query: SiteQuery },
  output: AlertDetail,
  links: [{ at: '', kind: 'alert' }],
  run: (ctx, input) => alertDetail({ ctx, input }),
  summarize: (d) => lines(
    alertLine(d),
    `Trigger ${d.trigger_type}${d.page ? ` on ${d.page}` : ''}: value ${d.condition_value ?? 'n/a'} against threshold ${d.threshold}; score ${d.score_before ?? 'none'} -> ${d.score_after ?? 'none'}.`,
    'Timeline:',
    bullets(d.timeline, (t) => `${t.created_at} ${t.kind}: ${t.message}`, 'timeline entries'),
  ),
});

export const updateAlertTool = defineTool({
  name: 'update_alert',
  title: 'Acknowledge, investigate or resolve an alert',
  description: 'Move an alert along: acknowledged, investigating, or resolved (with an optional resolved_reason). The rule\'s channels are told.',
  input: { params: AlertParams, body: UpdateAlertBody },
  output: AlertRecord,
  links: [{ at: '', kind: 'alert' }],
  write: { idempotent: false },
  run: (ctx, input) => updateAlert({ ctx, input }),
  summarize: (d) => `Updated: ${alertLine(d)}.`,
});

export const ALERT_TOOLS = [listAlertsTool, getAlertTool, updateAlertTool];
