// Alert channels against local servers: the email (plain text and HTML) reaches a real SMTP
// server for every member with role member or above; Slack gets a Block Kit message (by
// incoming webhook, or by bot token where the rule's channel wins); PagerDuty gets Events API
// v2 `trigger` and, when the alert is resolved over the API, `resolve` with dedup_key = alert
// id. A missing integration fails once with `no_integration`. Both dialects.
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { runDeliveryOnce } from '../src/delivery/worker.ts';
import { notify } from '../src/events/alert-notifications.ts';
import type { AlertsTable } from '../src/store/tables.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, MailServer, mimeParts, Receiver } from './helpers/delivery-kit.ts';

// Every socket of this file may only reach loopback.
installLoopbackGuard();

const ROUTING_KEY = 'R0UTINGKEYpagerduty0123456789ab';
const BOT_TOKEN = 'xoxb-1111-2222-bot-token-secret';

eachDialect('alert channels', ({ name, skip }) => {
  let receiver: Receiver;
  let mail: MailServer;
  const secretsSeen = [ROUTING_KEY, BOT_TOKEN];

  beforeAll(async () => {
    receiver = await new Receiver().start();
    mail = await new MailServer().start();
  });
  const h = useHarness(name, () => deliveryOptions({
    config: {
      smtpUrl: mail.url,
      providers: { slackApi: receiver.url('/slack-api'), pagerdutyEvents: receiver.url('/pd/v2/enqueue'), linearApi: receiver.url('/linear'), githubApi: receiver.url('/github') },
    },
  }));
  deliverySuiteHooks(h, () => receiver);
  afterAll(async () => { await mail?.close(); });
  beforeEach(() => { mail.mails.length = 0; });

  async function integrate(org: Org, provider: string, config: object) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/integrations', headers: bearer(org.keys.secret), payload: { provider, config } });
    expect(res.statusCode, res.body).toBe(201);
  }

  async function rule(org: Org, body: object) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: bearer(org.keys.secret), payload: { name: 'Checkout spike', trigger_type: 'spike', threshold: 10, ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; undeliverable_channels: string[] };
  }

  /** An alert of the rule as the pipeline fires it: the row, its timeline and its notifications, in one transaction. */
  async function fire(org: Org, ruleId: string) {
    const now = h.clock.now();
    const ruleRow = await h.store.db.selectFrom('alert_rules').selectAll().where('id', '=', ruleId).executeTakeFirstOrThrow();
    const alert: AlertsTable = {
      id: uuidv7(), site_id: org.site_id, rule_id: ruleId, trigger_type: 'spike', page: '/checkout', severity: 'critical', status: 'fired',
      message: 'Checkout spike: confusion on /checkout rose 24 points in one cycle <b>now</b>', score_before: 31, score_after: 55,
      condition_value: 24, threshold: 10, breakdown: JSON.stringify([{ signal: 'rage_click', share: 0.6 }, { signal: 'dead_click', share: 0.4 }]),
      fired_at: now, acknowledged_at: null, investigating_at: null, resolved_at: null, resolved_reason: null, last_notified_at: now, created_at: now, updated_at: now,
    };
    await h.store.db.transaction().execute(async (trx) => {
      await trx.insertInto('alerts').values(alert).execute();
      await notify(trx, ruleRow, alert, 'fired', now);
    });
    return alert;
  }

  const outboxOf = (org: Org) => h.store.db.selectFrom('outbox').selectAll().where('site_id', '=', org.site_id).where('kind', 'like', 'notify.%').orderBy('created_at').orderBy('id').execute();
  const timelineOf = (alertId: string) => h.store.db.selectFrom('alert_timeline').selectAll().where('alert_id', '=', alertId).orderBy('created_at').orderBy('id').execute();

  it.skipIf(skip)('email: one message, plain text and HTML, to the org\'s members with role member or above', async () => {
    const org = await h.org();
    const admin = (await h.user(org, 'admin')).email;
    const member = (await h.user(org, 'member')).email;
    const viewer = (await h.user(org, 'viewer')).email;
    const outsider = (await h.user(await h.org(), 'member')).email;
    const r = await rule(org, { channels: ['email'] });
    const alert = await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());

    expect(mail.mails).toHaveLength(1);
    const [m] = mail.mails;
    expect(m.to.sort()).toEqual([org.email, admin, member].sort());
    expect(m.to).not.toContain(viewer);
    expect(m.to).not.toContain(outsider);
    const subject = /^Subject: (.*)$/m.exec(m.raw)?.[1] ?? '';
    expect(subject).toContain('critical');
    expect(subject).toContain('/checkout');
    const parts = mimeParts(m.raw);
    expect(Object.keys(parts).sort()).toEqual(['text/html', 'text/plain']);
    expect(parts['text/plain']).toContain(alert.message);
    expect(parts['text/plain']).toContain('Score: 31 -> 55');
    expect(parts['text/plain']).toContain('Top signal: rage_click');
    expect(parts['text/plain']).toContain(`/v1/query/alerts/${alert.id}`);
    // The HTML part escapes the message and links the alert.
    expect(parts['text/html']).toContain('&lt;b&gt;now&lt;/b&gt;');
    expect(parts['text/html']).not.toContain('<b>now</b>');
    expect(parts['text/html']).toMatch(new RegExp(`<a href="[^"]*/v1/query/alerts/${alert.id}`));

    const [row] = await outboxOf(org);
    expect(row).toMatchObject({ kind: 'notify.email', status: 'done', attempts: 1 });
    const timeline = await timelineOf(alert.id);
    expect(timeline.map((t) => t.kind)).toEqual(['notification_queued', 'notification_sent']);
    expect(JSON.parse(timeline[1].details!)).toMatchObject({ channel: 'email', attempt: 1, status_code: 250, error: null });
  });

  it.skipIf(skip)('email: the rule\'s config.recipients replace the members', async () => {
    const org = await h.org();
    await h.user(org, 'admin');
    const r = await rule(org, { channels: ['email'], config: { recipients: ['oncall@example.com', 'lead@example.com'] } });
    await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());
    expect(mail.mails).toHaveLength(1);
    expect(mail.mails[0].to.sort()).toEqual(['lead@example.com', 'oncall@example.com']);
  });

  it.skipIf(skip)('slack by incoming webhook: a Block Kit message with title, page, score, trigger, rule, top signal and a link', async () => {
    const org = await h.org();
    await integrate(org, 'slack', { webhook_url: receiver.url('/services/T000/B000/incoming') });
    const r = await rule(org, { channels: ['slack'] });
    const alert = await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());

    const [req] = receiver.to('/services/T000/B000/incoming');
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    const msg = JSON.parse(req.body);
    expect(typeof msg.text).toBe('string');
    expect(msg.text).toContain(alert.message);
    expect(msg.blocks.map((b: { type: string }) => b.type)).toEqual(['header', 'section', 'section', 'actions']);
    const [header, summary, fields, actions] = msg.blocks;
    expect(header.text.type).toBe('plain_text');
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    expect(header.text.text).toContain('Checkout spike');
    expect(summary.text).toEqual({ type: 'mrkdwn', text: alert.message });
    const fieldText = fields.fields.map((f: { type: string; text: string }) => { expect(f.type).toBe('mrkdwn'); return f.text; }).join('\n');
    for (const want of ['/checkout', '31 -> 55', 'spike (threshold 10)', 'Checkout spike', 'rage_click']) expect(fieldText).toContain(want);
    expect(fields.fields.length).toBeLessThanOrEqual(10);
    expect(actions.elements[0]).toMatchObject({ type: 'button', text: { type: 'plain_text' }, url: `${h.config.publicUrl}/v1/query/alerts/${alert.id}?site_id=${org.site_id}` });
    expect((await outboxOf(org))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it.skipIf(skip)('slack by bot token: chat.postMessage with the bearer token, the rule\'s slack_channel overriding the integration\'s; ok:false is a failure and retried', async () => {
    const org = await h.org();
    await integrate(org, 'slack', { bot_token: BOT_TOKEN, channel: '#general' });
    const r = await rule(org, { channels: ['slack'], slack_channel: '#checkout-alerts' });
    let answer = '{"ok":false,"error":"channel_not_found"}';
    receiver.respond((req) => (req.url === '/slack-api/chat.postMessage' ? { status: 200, body: answer } : undefined));
    await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());
    const [first] = receiver.to('/slack-api/chat.postMessage');
    expect(first.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    const body = JSON.parse(first.body);
    expect(body.channel).toBe('#checkout-alerts');
    expect(body.blocks[0].type).toBe('header');
    let [row] = await outboxOf(org);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });

    answer = '{"ok":true,"ts":"1.2"}';
    h.clock.advance(5000);
    await runDeliveryOnce(h.deliveryDeps());
    [row] = await outboxOf(org);
    expect(row).toMatchObject({ status: 'done', attempts: 2 });
    expect(receiver.to('/slack-api/chat.postMessage')).toHaveLength(2);
  });

  it.skipIf(skip)('slack by bot token without a rule channel posts to the integration\'s channel', async () => {
    const org = await h.org();
    await integrate(org, 'slack', { bot_token: BOT_TOKEN, channel: '#general' });
    const r = await rule(org, { channels: ['slack'] });
    await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());
    expect(JSON.parse(receiver.to('/slack-api/chat.postMessage')[0].body).channel).toBe('#general');
  });

  it.skipIf(skip)('pagerduty: Events API v2 trigger on fire, then resolve with the same dedup_key when the alert is resolved over the API', async () => {
    const org = await h.org();
    await integrate(org, 'pagerduty', { routing_key: ROUTING_KEY });
    const r = await rule(org, { channels: ['pagerduty', 'slack', 'email'] });
    const alert = await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());

    const [trigger] = receiver.to('/pd/v2/enqueue');
    const event = JSON.parse(trigger.body);
    expect(event).toMatchObject({ routing_key: ROUTING_KEY, event_action: 'trigger', dedup_key: alert.id });
    expect(event.payload).toMatchObject({ summary: alert.message, source: 'mallard', severity: 'critical', component: '/checkout', class: 'spike' });
    expect(event.payload.summary.length).toBeLessThanOrEqual(1024);
    expect(['critical', 'error', 'warning', 'info']).toContain(event.payload.severity);

    // Acknowledging sends nothing to PagerDuty; resolving does.
    const jwt = await h.login(org.email, org.password);
    const ack = await h.app.inject({ method: 'PATCH', url: `/v1/manage/alerts/${alert.id}`, headers: bearer(jwt), payload: { status: 'acknowledged' } });
    expect(ack.statusCode).toBe(200);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/pd/v2/enqueue')).toHaveLength(1);

    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/alerts/${alert.id}`, headers: bearer(jwt), payload: { status: 'resolved', resolved_reason: 'rolled back' } });
    expect(res.statusCode).toBe(200);
    const mailsBefore = mail.mails.length;
    await runDeliveryOnce(h.deliveryDeps());
    const pd = receiver.to('/pd/v2/enqueue');
    expect(pd).toHaveLength(2);
    expect(JSON.parse(pd[1].body)).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: alert.id });
    // Slack and email spoke once, at fire time.
    expect(mail.mails.length).toBe(mailsBefore);
    expect(receiver.requests.filter((q) => q.url.startsWith('/slack'))).toHaveLength(0);

    const detail = await h.app.inject({ method: 'GET', url: `/v1/query/alerts/${alert.id}?site_id=${org.site_id}`, headers: bearer(jwt) });
    const kinds = detail.json().data.timeline.map((t: { kind: string }) => t.kind);
    expect(kinds).toContain('resolved');
    const sent = detail.json().data.timeline.filter((t: { kind: string; details: { channel: string } }) => t.kind === 'notification_sent' && t.details.channel === 'pagerduty');
    expect(sent).toHaveLength(2);
    expect(detail.body).not.toContain(ROUTING_KEY);
  });

  it.skipIf(skip)('webhook channel: alert.fired and score.spike on fire, then alert.acknowledged, alert.investigating and alert.resolved, each signed', async () => {
    const org = await h.org();
    const made = await h.app.inject({
      method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret),
      payload: { url: receiver.url('/alerts-hook'), events: ['alert.fired', 'score.spike', 'alert.acknowledged', 'alert.investigating', 'alert.resolved'] },
    });
    const secret = made.json().data.secret as string;
    const r = await rule(org, { channels: ['webhook'] });
    const alert = await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());
    const jwt = await h.login(org.email, org.password);
    for (const status of ['acknowledged', 'investigating', 'resolved']) {
      const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/alerts/${alert.id}`, headers: bearer(jwt), payload: { status } });
      expect(res.statusCode).toBe(200);
      await runDeliveryOnce(h.deliveryDeps());
    }
    const { Webhook } = await import('standardwebhooks');
    const wh = new Webhook(secret);
    const events = receiver.to('/alerts-hook').map((q) => wh.verify(q.body, q.headers as Record<string, string>) as { type: string; site_id: string; data: { id: string; status: string } });
    // Deliveries due together are sent concurrently: no order between the two fire-time events.
    expect(events.slice(0, 2).map((e) => e.type).sort()).toEqual(['alert.fired', 'score.spike']);
    expect(events.slice(2).map((e) => e.type)).toEqual(['alert.acknowledged', 'alert.investigating', 'alert.resolved']);
    for (const e of events) expect(e).toMatchObject({ site_id: org.site_id, data: { id: alert.id } });
    expect(events.at(-1)!.data.status).toBe('resolved');
    // DOMAIN §8: each event carries the full alert, as the query API lists it (without the timeline).
    const detail = (await h.app.inject({ method: 'GET', url: `/v1/query/alerts/${alert.id}?site_id=${org.site_id}`, headers: bearer(jwt) })).json().data;
    const { timeline: _timeline, ...record } = detail;
    expect(events.at(-1)!.data).toEqual(record);
  });

  it.skipIf(skip)('pagerduty severities map warning, high and critical to warning, error and critical', async () => {
    const { pagerdutyEvent } = await import('../src/delivery/channels.ts');
    const base = { id: 'a', message: 'x'.repeat(3000), page: null, trigger_type: 'spike', threshold: 1, condition_value: 2, score_before: null, score_after: 3, breakdown: '[]', rule_name: null } as never;
    for (const [ours, theirs] of [['warning', 'warning'], ['high', 'error'], ['critical', 'critical']]) {
      const event = pagerdutyEvent({ ...(base as object), severity: ours } as never, 'k', 'trigger') as { payload: { severity: string; summary: string } };
      expect(event.payload.severity).toBe(theirs);
      expect(event.payload.summary).toHaveLength(1024);
    }
  });

  it.skipIf(skip)('a channel without its integration (or email without SMTP_URL) fails once with no_integration and is not retried', async () => {
    const org = await h.org();
    const r = await rule(org, { channels: ['slack', 'pagerduty'] });
    // The rule said so before any alert: its undeliverable_channels are the ones delivery fails.
    expect(r.undeliverable_channels).toEqual(['slack', 'pagerduty']);
    const alert = await fire(org, r.id);
    await runDeliveryOnce(h.deliveryDeps());
    const rows = await outboxOf(org);
    expect(rows.map((o) => [o.kind, o.status, o.attempts])).toEqual(expect.arrayContaining([['notify.slack', 'failed', 1], ['notify.pagerduty', 'failed', 1]]));
    const failures = (await timelineOf(alert.id)).filter((t) => t.kind === 'notification_failed');
    expect(failures.map((t) => JSON.parse(t.details!).error)).toEqual(['no_integration', 'no_integration']);
    h.clock.advance(24 * 60 * 60 * 1000);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.requests).toHaveLength(0);

    const noSmtp = { ...h.deliveryDeps(), config: { ...h.config, smtpUrl: null } };
    const r2 = await rule(org, { name: 'Mail', channels: ['email'] });
    await fire(org, r2.id);
    await runDeliveryOnce(noSmtp);
    expect(mail.mails).toHaveLength(0);
    expect((await outboxOf(org)).find((o) => o.kind === 'notify.email')).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it.skipIf(skip)('an SMTP server that is down is retried on the schedule, then the mail goes out once', async () => {
    const org = await h.org();
    const r = await rule(org, { channels: ['email'] });
    await fire(org, r.id);
    // Nothing listens on 127.0.0.1:9: the connection is refused and the send fails.
    await runDeliveryOnce({ ...h.deliveryDeps(), config: { ...h.config, smtpUrl: 'smtp://127.0.0.1:9' } });
    let [row] = await outboxOf(org);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    h.clock.advance(5000);
    await runDeliveryOnce(h.deliveryDeps());
    [row] = await outboxOf(org);
    expect(row).toMatchObject({ status: 'done', attempts: 2 });
    expect(mail.mails).toHaveLength(1);
  });

  it.skipIf(skip)('no credential shows in any response or log line', async () => {
    const logs = h.logs.join('');
    expect(logs).toContain('/v1/manage/integrations');
    for (const secret of secretsSeen) expect(logs).not.toContain(secret);
  });
});
