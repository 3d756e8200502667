// Alerts: the list, one alert with its timeline, and the lifecycle (a write tool).
import { alertDetailOp, listAlertsOp, moveAlertOp } from '../../features/alerts/operations.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, lines, plural } from '../text.ts';

const alertLine = (a: Record<string, unknown>) =>
  `[${a.severity}] ${a.message} (${a.status}, fired ${a.fired_at}${a.rule_name ? `, rule ${a.rule_name}` : ''}; id ${a.id})`;

export const listAlertsTool = defineTool({
  name: 'list_alerts',
  operation: listAlertsOp,
  title: 'Alerts',
  description: 'Alerts fired by the site\'s rules, latest first (active: fired, acknowledged, investigating).',
  argumentNotes: { status: null },
  links: [{ at: 'alerts[]', kind: 'alert' }],
  summarize: (d, input) => d.total === 0 ? `No alerts${input.status ? ` with status ${input.status}` : ''}.` : lines(
    `${plural(d.total, 'alert')}${input.status ? ` with status ${input.status}` : ''}; showing ${d.offset + 1} to ${d.offset + d.alerts.length}:`,
    bullets(d.alerts, alertLine, 'alerts on this page of results'),
  ),
});

export const getAlertTool = defineTool({
  name: 'get_alert',
  operation: alertDetailOp,
  title: 'One alert',
  description: 'One alert with its timeline, the scores before and after, and what fired it.',
  listedFields: [
    'id', 'rule_name', 'trigger_type', 'page', 'severity', 'status', 'message', 'score_before', 'score_after', 'condition_value', 'threshold', 'breakdown',
    'fired_at', 'resolved_reason', 'timeline', 'dashboard_url',
  ],
  argumentNotes: { alert_id: null },
  links: [{ at: '', kind: 'alert' }],
  summarize: (d) => lines(
    alertLine(d),
    `Trigger ${d.trigger_type}${d.page ? ` on ${d.page}` : ''}: value ${d.condition_value ?? 'n/a'} against threshold ${d.threshold}; score ${d.score_before ?? 'none'} -> ${d.score_after ?? 'none'}.`,
    'Timeline:',
    bullets(d.timeline, (t) => `${t.created_at} ${t.kind}: ${t.message}`, 'timeline entries'),
  ),
});

export const updateAlertTool = defineTool({
  name: 'update_alert',
  operation: moveAlertOp,
  title: 'Move an alert along',
  description: 'Acknowledge, investigate or resolve an alert; the rule\'s channels are told. Answers the alert and written.',
  argumentNotes: { alert_id: null, status: null, resolved_reason: 'only with status resolved' },
  listedFields: ['id', 'message', 'status', 'written', 'dashboard_url'],
  links: [{ at: '', kind: 'alert' }],
  summarize: (d) => `${d.written.unchanged ? `Already ${d.status}: nothing changed, no one told again` : `Updated: ${[d.written.status && `status ${d.written.status}`, d.written.resolved_reason && `reason "${d.written.resolved_reason}"`].filter(Boolean).join(', ')}`}. Now: ${alertLine(d)}.`,
});

export const ALERT_TOOLS = [listAlertsTool, getAlertTool, updateAlertTool];
