// The alert record and its lifecycle: PATCH /v1/manage/alerts/{id} (acknowledged,
// investigating, resolved with resolved_reason; anything else 400 invalid_status), the
// timeline entries each step records (including queued notifications), and tenancy.
import { beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, ingest, intervalTraffic, INTERVAL, MIN } from './helpers/alert-traffic.ts';

const C1 = Date.UTC(2026, 9, 28, 9, 0); // a cycle time five days before the harness clock

eachDialect('alert lifecycle', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let a: ReturnType<typeof api>;
  let viewer: ReturnType<typeof api>;
  let outsider: ReturnType<typeof api>;
  let alertIds: string[];

  /**
 * A site with one scored page and a budget rule at 10 on all channels: five alerts. /checkout: 10
 * visitors, 8 rage clicks from one: 200 / 10 = 20 per user, 1 of 10 affected (x 1.5) = raw 30,
 * score 100 x (1 - e^-3) = 95.
 */
  beforeAll(async () => {
    const org = await h.org('Life');
    a = api(h, org.keys.secret);
    viewer = api(h, org.keys.mcp);
    outsider = api(h, (await h.org('Outsider')).keys.secret);
    h.clock.set(C1);
    await a.createRule({ name: 'Loud', trigger_type: 'budget', threshold: 10, channels: ['email', 'slack', 'webhook', 'mcp', 'pagerduty'], slack_channel: '#ops' });
    for (let i = 0; i < 4; i++) await a.createRule({ name: `Quiet ${i}`, trigger_type: 'budget', threshold: 10 });
    await ingest(h, org.keys.secret, intervalTraffic(C1 - INTERVAL, [{ page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', count: 8 }] }]));
    await cycle(h, org.site_id, C1);
    alertIds = (await a.alerts()).alerts.map((x) => x.id);
    expect(alertIds).toHaveLength(5);
  });

  const loud = async () => (await a.alerts()).alerts.find((x) => x.rule_name === 'Loud')!;
  const patch = (id: string, body: unknown) => a.call('PATCH', `/v1/manage/alerts/${id}`, body);

  it('the record: rule, trigger, page, severity, message, scores before and after, breakdown, timestamps', async () => {
    const alert = await a.get(`/v1/query/alerts/${(await loud()).id}`);
    expect(alert).toMatchObject({
      rule_name: 'Loud', trigger_type: 'budget', page: '/checkout', status: 'fired', severity: 'critical', // 95 >= 81, and >= 2 x 10
      score_before: null, score_after: 95, condition_value: 95, threshold: 10,
      breakdown: [{ signal: 'rage_click', count: 8, weight: 25, weighted_score: 200, percentage: 100 }],
      fired_at: new Date(C1).toISOString(), created_at: new Date(C1).toISOString(),
    });
    expect(typeof alert.message).toBe('string');
    expect(alert.rule_id).toMatch(/^[0-9a-f-]{36}$/);
    // Fired, then the notifications queued for every pushing channel (mcp has no push).
    expect(alert.timeline.map((t: any) => t.kind)).toEqual(['fired', 'notification_queued']);
    expect(alert.timeline[0].details).toMatchObject({ condition_value: 95, threshold: 10, score: 95 });
    expect([...alert.timeline[1].details.channels].sort()).toEqual(['email', 'pagerduty', 'slack', 'webhook']);
  });

  it('acknowledged, investigating, resolved: each stamps its time and adds a timeline entry; the webhook and PagerDuty hear of it', async () => {
    const { id } = await loud();
    h.clock.set(C1 + MIN);
    const ack = await patch(id, { status: 'acknowledged' });
    expect(ack.status, ack.raw).toBe(200);
    expect(ack.body.data).toMatchObject({ id, status: 'acknowledged', acknowledged_at: new Date(C1 + MIN).toISOString(), updated_at: new Date(C1 + MIN).toISOString() });
    h.clock.set(C1 + 2 * MIN);
    expect((await patch(id, { status: 'investigating' })).body.data).toMatchObject({ status: 'investigating', investigating_at: new Date(C1 + 2 * MIN).toISOString() });
    h.clock.set(C1 + 3 * MIN);
    const res = await patch(id, { status: 'resolved', resolved_reason: 'Rolled back 2.0.1' });
    expect(res.body.data).toMatchObject({ status: 'resolved', resolved_at: new Date(C1 + 3 * MIN).toISOString(), resolved_reason: 'Rolled back 2.0.1' });

    const { timeline } = await a.get(`/v1/query/alerts/${id}`);
    expect(timeline.map((t: any) => [t.kind, t.created_at])).toEqual([
      ['fired', new Date(C1).toISOString()],
      ['notification_queued', new Date(C1).toISOString()],
      ['acknowledged', new Date(C1 + MIN).toISOString()],
      ['notification_queued', new Date(C1 + MIN).toISOString()],
      ['investigating', new Date(C1 + 2 * MIN).toISOString()],
      ['notification_queued', new Date(C1 + 2 * MIN).toISOString()],
      ['resolved', new Date(C1 + 3 * MIN).toISOString()],
      ['notification_queued', new Date(C1 + 3 * MIN).toISOString()],
    ]);
    expect(timeline[6].message).toContain('Rolled back 2.0.1');
    expect(timeline[3].details.channels).toEqual(['webhook']); // Slack and email speak on firing only
    expect([...timeline[7].details.channels].sort()).toEqual(['pagerduty', 'webhook']); // PagerDuty resolves its incident
  });

  it('a resolved alert can be PATCHed again; the engine never reopens it', async () => {
    const { id } = await loud();
    h.clock.set(C1 + 4 * MIN);
    const res = await patch(id, { status: 'acknowledged' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('acknowledged');
    expect((await patch(id, { status: 'resolved' })).body.data).toMatchObject({ status: 'resolved', resolved_reason: null });
  });

  it('resolved without a reason, straight from fired', async () => {
    const target = (await a.alerts('&status=fired')).alerts[0].id;
    expect(alertIds).toContain(target);
    const res = await patch(target, { status: 'resolved' });
    expect(res.body.data).toMatchObject({ status: 'resolved', resolved_reason: null, acknowledged_at: null });
    const { timeline } = await a.get(`/v1/query/alerts/${target}`);
    expect(timeline.map((t: any) => t.kind)).toEqual(['fired', 'resolved']); // no channels: nothing queued
  });

  it('any other status is 400 invalid_status and changes nothing', async () => {
    const target = (await a.alerts('&status=fired')).alerts[0];
    for (const status of ['fired', 'open', 'closed', 'RESOLVED', '', 42, null]) {
      const res = await patch(target.id, { status });
      expect(res.status, `${JSON.stringify(status)}: ${res.raw}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_status');
      expect(res.body.error.status).toBe(400);
    }
    expect((await a.get(`/v1/query/alerts/${target.id}`)).status).toBe('fired');
  });

  it('other bad bodies: resolved_reason without resolved, unknown fields, empty object, no body', async () => {
    const target = (await a.alerts('&status=fired')).alerts[0];
    const reason = await patch(target.id, { status: 'acknowledged', resolved_reason: 'nope' });
    expect(reason.status).toBe(400);
    expect(reason.body.error).toMatchObject({ code: 'invalid_input', details: { field: 'resolved_reason' } });
    const alone = await patch(target.id, { resolved_reason: 'nope' });
    expect(alone.body.error.code).toBe('invalid_input');
    const unknown = await patch(target.id, { status: 'resolved', severity: 'low' });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_input', details: { field: 'severity' } });
    expect((await patch(target.id, {})).body.error.code).toBe('invalid_input');
    const none = await h.app.inject({ method: 'PATCH', url: `/v1/manage/alerts/${target.id}`, headers: { authorization: `Bearer ${a.key}` } });
    expect(none.json().error.code).toBe('empty_body');
    expect((await a.get(`/v1/query/alerts/${target.id}`)).status).toBe('fired');
  });

  it('ids: malformed is 400 invalid_uuid, unknown or another org\'s is 404 not_found', async () => {
    const bad = await patch('12345', { status: 'acknowledged' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_uuid');
    expect((await a.call('GET', '/v1/query/alerts/12345')).body.error.code).toBe('invalid_uuid');
    const unknown = '0190f5c2-0000-7000-8000-000000000000';
    expect((await patch(unknown, { status: 'acknowledged' })).status).toBe(404);
    expect((await a.call('GET', `/v1/query/alerts/${unknown}`)).body.error.code).toBe('not_found');

    const mine = (await a.alerts('&status=fired')).alerts[0].id;
    const theirs = await outsider.call('PATCH', `/v1/manage/alerts/${mine}`, { status: 'resolved' });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    expect((await outsider.call('GET', `/v1/query/alerts/${mine}`)).status).toBe(404);
    expect((await outsider.get('/v1/query/alerts')).total).toBe(0);
    expect((await a.get(`/v1/query/alerts/${mine}`)).status).toBe('fired');
  });

  it('an MCP key reads alerts but cannot change them', async () => {
    const list = await viewer.get('/v1/query/alerts');
    expect(list.total).toBe(5);
    const res = await viewer.call('PATCH', `/v1/manage/alerts/${list.alerts[0].id}`, { status: 'acknowledged' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('missing_scope');
  });
});
