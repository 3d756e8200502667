// Alert notifications on their channels: Slack (Block Kit, by incoming webhook or bot
// token), PagerDuty (Events API v2: trigger, and resolve with the same dedup key) and email
// (nodemailer over SMTP_URL, plain text and HTML). Pure message builders, then one send.
import nodemailer from 'nodemailer';
import type { Kysely } from 'kysely';
import type { Secrets } from '../auth/secrets.ts';
import type { Config } from '../config.ts';
import type { AlertsTable, Database } from '../store/tables.ts';
import { integrationConfig } from '../domain/integrations.ts';
import { alertsWithRuleName } from '../domain/records/alert.ts';
import type { Payload } from '../events/jobs.ts';
import { postJson, type SendResult } from './http-post.ts';
import type { TargetPolicy } from './targets.ts';

export type Channel = 'slack' | 'pagerduty' | 'email';
export interface ChannelDeps { db: Kysely<Database>; secrets: Secrets; config: Config; policy: TargetPolicy }
interface AlertView extends AlertsTable { rule_name: string | null }

const topSignal = (a: AlertsTable) => (JSON.parse(a.breakdown) as { signal: string }[])[0]?.signal ?? null;
const alertLink = (config: Config, a: AlertsTable) => `${config.publicUrl}/v1/query/alerts/${a.id}?site_id=${a.site_id}`;
const scoreText = (a: AlertsTable) => (a.score_after === null ? 'n/a' : a.score_before === null ? `${a.score_after}` : `${a.score_before} -> ${a.score_after}`);

export function slackMessage(a: AlertView, config: Config) {
  const title = `${a.severity.toUpperCase()}: ${a.rule_name ?? a.trigger_type} on ${a.page ?? 'the site'}`;
  const fields = [
    ['Page', a.page ?? 'whole site'], ['Score', scoreText(a)], ['Trigger', `${a.trigger_type} (threshold ${a.threshold})`],
    ['Rule', a.rule_name ?? '-'], ['Top signal', topSignal(a) ?? '-'], ['Condition', a.condition_value === null ? '-' : String(a.condition_value)],
  ];
  return {
    text: `${a.severity.toUpperCase()}: ${a.message}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: a.message.slice(0, 2900) } },
      { type: 'section', fields: fields.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${v}` })) },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open alert' }, url: alertLink(config, a) }] },
    ],
  };
}

const PD_SEVERITY: Record<string, string> = { warning: 'warning', high: 'error', critical: 'critical' };

export function pagerdutyEvent(a: AlertView, routingKey: string, action: 'trigger' | 'resolve') {
  if (action === 'resolve') return { routing_key: routingKey, event_action: 'resolve', dedup_key: a.id };
  return {
    routing_key: routingKey, event_action: 'trigger', dedup_key: a.id,
    payload: {
      summary: a.message.slice(0, 1024), source: 'mallard', severity: PD_SEVERITY[a.severity] ?? 'warning',
      component: a.page ?? 'site', class: a.trigger_type,
      custom_details: { score: scoreText(a), threshold: a.threshold, condition_value: a.condition_value, top_signal: topSignal(a) },
    },
  };
}

export function emailMessage(a: AlertView, config: Config) {
  const subject = `[Mallard] ${a.severity}: ${a.rule_name ?? a.trigger_type} on ${a.page ?? 'the site'}`;
  const lines = [a.message, '', `Page: ${a.page ?? 'whole site'}`, `Score: ${scoreText(a)}`, `Trigger: ${a.trigger_type} (threshold ${a.threshold})`, `Top signal: ${topSignal(a) ?? '-'}`, '', alertLink(config, a)];
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const html = `<p>${esc(a.message)}</p><ul>${lines.slice(2, 6).map((l) => `<li>${esc(l)}</li>`).join('')}</ul><p><a href="${esc(alertLink(config, a))}">Open the alert</a></p>`;
  return { subject, text: lines.join('\n'), html };
}

const failed = (error: string): SendResult => ({ ok: false, statusCode: null, latencyMs: 0, error, body: '' });

/** Sends one notification within `timeoutMs`; `no_integration` when the channel is not set up (final: not retried). */
export async function sendNotification(channel: Channel, payload: Payload<'notify.slack'>, deps: ChannelDeps, timeoutMs: number): Promise<SendResult & { final?: boolean }> {
  const alert = await alertsWithRuleName(deps.db).where('alerts.id', '=', payload.alert_id).executeTakeFirst();
  if (!alert) return { ...failed('alert deleted'), final: true };
  if (channel === 'slack') {
    const config = await integrationConfig(deps.db, deps.secrets, alert.site_id, 'slack');
    if (!config) return { ...failed('no_integration'), final: true };
    const message = slackMessage(alert, deps.config);
    if ('webhook_url' in config) return postJson(config.webhook_url, JSON.stringify(message), {}, deps.policy, timeoutMs);
    const result = await postJson(`${deps.config.providers.slackApi}/chat.postMessage`, JSON.stringify({ channel: payload.slack_channel ?? config.channel, ...message }), { authorization: `Bearer ${config.bot_token}` }, deps.policy, timeoutMs);
    // Slack's Web API answers 200 with ok: false on errors.
    if (result.ok && !/"ok"\s*:\s*true/.test(result.body)) return { ...result, ok: false, error: `slack: ${result.body.slice(0, 200)}` };
    return result;
  }
  if (channel === 'pagerduty') {
    const config = await integrationConfig(deps.db, deps.secrets, alert.site_id, 'pagerduty');
    if (!config) return { ...failed('no_integration'), final: true };
    const event = pagerdutyEvent(alert, config.routing_key, payload.event === 'resolved' ? 'resolve' : 'trigger');
    return postJson(deps.config.providers.pagerdutyEvents, JSON.stringify(event), {}, deps.policy, timeoutMs);
  }
  if (!deps.config.smtpUrl) return { ...failed('no_integration'), final: true };
  let recipients = payload.recipients;
  if (!recipients?.length) {
    const members = await deps.db.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id').innerJoin('sites', 'sites.org_id', 'memberships.org_id')
      .select('users.email').where('sites.id', '=', alert.site_id).where('memberships.role', 'in', ['member', 'admin', 'owner']).execute();
    recipients = members.map((m) => m.email);
  }
  if (!recipients.length) return { ...failed('no recipients'), final: true };
  const started = Date.now();
  try {
    const transport = nodemailer.createTransport({ url: deps.config.smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    const message = emailMessage(alert, deps.config);
    await transport.sendMail({ from: 'Mallard <alerts@mallard.invalid>', to: recipients, ...message });
    transport.close();
    return { ok: true, statusCode: 250, latencyMs: Date.now() - started, error: null, body: '' };
  } catch (err) {
    return { ok: false, statusCode: null, latencyMs: Date.now() - started, error: (err as Error).message, body: '' };
  }
}
