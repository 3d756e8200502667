// What an alert's change sends, on the rule's channels: the `alert.*` webhook events (and
// `score.spike` for a fired spike), and Slack, email and PagerDuty notifications. Queued with
// the change by the pipeline's alert step and by the alert lifecycle alike.
import { v7 as uuidv7 } from 'uuid';
import type { Transaction } from 'kysely';
import { toAlertRecord } from '../domain/records/alert.ts';
import type { AlertRulesTable, AlertsTable, Database } from '../store/tables.ts';
import { ALERT_NOTIFY_EVENTS, enqueue, eventJob } from './jobs.ts';

type AlertEvent = (typeof ALERT_NOTIFY_EVENTS)[number];
type NotifyingRule = Pick<AlertRulesTable, 'name' | 'channels' | 'slack_channel' | 'config' | 'trigger_type'>;

/** Queues the alert's notifications on the rule's channels (mcp has no push: the API shows it). */
export async function notify(trx: Transaction<Database>, rule: NotifyingRule, alert: AlertsTable, event: AlertEvent, now: number) {
  const channels = JSON.parse(rule.channels) as string[];
  const sent: string[] = [];
  if (channels.includes('webhook')) {
    // Webhook receivers get the alert exactly as GET /v1/query/alerts/{id} lists it.
    const record = toAlertRecord({ ...alert, rule_name: rule.name });
    await enqueue(trx, eventJob(alert.site_id, `alert.${event}`, record, now), now);
    if (event === 'fired' && rule.trigger_type === 'spike') await enqueue(trx, eventJob(alert.site_id, 'score.spike', record, now), now);
    sent.push('webhook');
  }
  const recipients = (JSON.parse(rule.config) as { recipients?: string[] }).recipients ?? null;
  for (const channel of ['slack', 'email', 'pagerduty'] as const) {
    if (!channels.includes(channel)) continue;
    // Slack and email speak when an alert fires; PagerDuty also resolves its incident.
    if (event !== 'fired' && !(channel === 'pagerduty' && event === 'resolved')) continue;
    await enqueue(trx, { kind: `notify.${channel}`, siteId: alert.site_id, payload: { alert_id: alert.id, event, slack_channel: rule.slack_channel, recipients } }, now);
    sent.push(channel);
  }
  if (sent.length) {
    await trx.insertInto('alert_timeline').values({ id: uuidv7(), alert_id: alert.id, kind: 'notification_queued', message: `Notification queued: ${sent.join(', ')}`, details: JSON.stringify({ channels: sent, event }), created_at: now }).execute();
  }
}
