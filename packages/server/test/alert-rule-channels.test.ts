// An alert rule says which of its channels cannot deliver now (`undeliverable_channels`), as
// the delivery worker decides it: Slack and PagerDuty without the site's integration, email
// without SMTP_URL on the server (test/channels.test.ts shows delivery failing the same ones
// with no_integration). Listed, created and patched rules carry it. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

eachDialect('alert rules name their undeliverable channels', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  const mailing = useHarness(name, { raisedLimits: true, config: { smtpUrl: 'smtp://127.0.0.1:9' } });
  let org: Org;

  const call = (app: typeof h, o: Org, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    app.app.inject({ method, url: `/v1${url}`, headers: bearer(o.keys.secret), ...(payload ? { payload } : {}) });

  beforeAll(async () => { if (!skip) org = await h.org('Channels'); });

  it.skipIf(skip)('lists Slack, PagerDuty and email until each is set up; webhook and MCP never', async () => {
    const created = await call(h, org, 'POST', '/manage/alert-rules', { name: 'Everywhere', trigger_type: 'spike', threshold: 10, channels: ['webhook', 'email', 'slack', 'pagerduty', 'mcp'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.undeliverable_channels).toEqual(['email', 'slack', 'pagerduty']);
    const id = created.json().data.id as string;

    const connected = await call(h, org, 'POST', '/manage/integrations', { provider: 'slack', config: { bot_token: 'xoxb-channels-test', channel: '#alerts' } });
    expect(connected.statusCode, connected.body).toBe(201);
    const listed = await call(h, org, 'GET', '/manage/alert-rules');
    expect(listed.json().data.rules.map((r: { id: string; undeliverable_channels: string[] }) => [r.id, r.undeliverable_channels])).toEqual([[id, ['email', 'pagerduty']]]);

    const patched = await call(h, org, 'PATCH', `/manage/alert-rules/${id}`, { channels: ['webhook', 'slack'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.undeliverable_channels).toEqual([]);
  });

  it.skipIf(skip)('does not list email when the server has SMTP_URL', async () => {
    const other = await mailing.org('Mailing');
    const created = await call(mailing, other, 'POST', '/manage/alert-rules', { name: 'Mail', trigger_type: 'spike', threshold: 10, channels: ['email', 'pagerduty'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.undeliverable_channels).toEqual(['pagerduty']);
  });
});
