// Alert rule routes: GET/POST /v1/manage/alert-rules, PATCH/DELETE /v1/manage/alert-rules/{id}.
// Every field of the spec's Alert rule table, the defaults and per-trigger threshold bounds of
// DOMAIN.md section 5, the contract's error codes, partial PATCH, and tenancy.
import { beforeAll, describe, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api } from './helpers/alert-traffic.ts';

// DOMAIN.md section 5: [min, max] per trigger, with a value just outside each end.
const BOUNDS: [trigger: string, min: number, max: number, below: number, above: number][] = [
  ['spike', 1, 100, 0.99, 100.01],
  ['anomaly', 50, 99.99, 49.99, 100],
  ['new_page', 0, 100, -0.01, 100.01],
  ['trend', 0, 100, -1, 101],
  ['co_occurrence', 1, 10_000, 0, 10_001],
  ['positive', 0, 100, -0.1, 100.1],
  ['budget', 0, 100, -5, 150],
  ['revenue_threshold', 0, 1e9, -1, 1e9 + 1],
  ['stalled_signups', 0, 100, -1, 100.5],
];

eachDialect('alert rules routes', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let siteId: string;
  let a: ReturnType<typeof api>;
  let mcpKey: string;
  let other: ReturnType<typeof api>;
  let otherSiteId: string;

  beforeAll(async () => {
    const org = await h.org('Rules');
    siteId = org.site_id;
    mcpKey = org.keys.mcp;
    a = api(h, org.keys.secret);
    const org2 = await h.org('Other');
    otherSiteId = org2.site_id;
    other = api(h, org2.keys.secret);
  });

  const expectInvalid = (res: { status: number; body: any; raw: string }, field: string, code = 'invalid_input') => {
    expect(res.status, res.raw).toBe(400);
    expect(res.body.data).toBeNull();
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.status).toBe(400);
    if (field) expect(res.body.error.details?.field).toBe(field);
  };

  it('creates a rule with only the required fields and fills the defaults of DOMAIN.md', async () => {
    const res = await a.call('POST', '/v1/manage/alert-rules', { name: 'Checkout spikes', trigger_type: 'spike', threshold: 15 });
    expect(res.status, res.raw).toBe(201);
    expect(res.body.error).toBeNull();
    const rule = res.body.data;
    expect(rule).toMatchObject({
      site_id: siteId, name: 'Checkout spikes', trigger_type: 'spike', threshold: 15,
      cooldown_minutes: 60, channels: [], page_pattern: '*', slack_channel: null, config: {}, enabled: true,
    });
    expect(rule.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(rule.created_at).toBe(new Date(h.clock.now()).toISOString());
    expect(rule.updated_at).toBe(rule.created_at);
  });

  it('creates a rule with every field of the spec table and returns each', async () => {
    const body = {
      site_id: siteId, name: 'Budget on checkout', trigger_type: 'budget', threshold: 40, cooldown_minutes: 1440,
      channels: ['email', 'slack', 'webhook', 'mcp', 'pagerduty'], page_pattern: '/checkout*', slack_channel: '#alerts',
      config: { period: 'weekly', recipients: ['ops@example.com'] }, enabled: false,
    };
    const rule = await a.createRule(body);
    const { site_id: _s, ...rest } = body;
    expect(rule).toMatchObject({ ...rest, site_id: siteId });
    // And it is listed as created.
    const list = await a.get('/v1/manage/alert-rules');
    expect(list.rules.find((r: any) => r.id === rule.id)).toEqual(rule);
  });

  it('lists only the site\'s rules, oldest first', async () => {
    const first = await other.createRule({ name: 'one', trigger_type: 'positive', threshold: 10 });
    const second = await other.createRule({ name: 'two', trigger_type: 'trend', threshold: 10 });
    const list = await other.get(`/v1/manage/alert-rules?site_id=${otherSiteId}`);
    expect(list.rules.map((r: any) => r.id)).toEqual([first.id, second.id]);
    const mine = await a.get('/v1/manage/alert-rules');
    expect(mine.rules.some((r: any) => r.id === first.id)).toBe(false);
  });

  describe('threshold bounds per trigger', () => {
    it.each(BOUNDS)('%s accepts %d and %d and refuses %d and %d', async (trigger, min, max, below, above) => {
      for (const threshold of [min, max]) {
        const res = await a.call('POST', '/v1/manage/alert-rules', { name: `${trigger} ok`, trigger_type: trigger, threshold });
        expect(res.status, res.raw).toBe(201);
        expect(res.body.data.threshold).toBe(threshold);
      }
      for (const threshold of [below, above]) {
        expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: `${trigger} bad`, trigger_type: trigger, threshold }), 'threshold');
      }
    });
  });

  it('refuses an unknown trigger_type, a missing required field and a non-number threshold', async () => {
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x', trigger_type: 'foo', threshold: 10 }), 'trigger_type');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x', trigger_type: 'Spike', threshold: 10 }), 'trigger_type');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { trigger_type: 'spike', threshold: 10 }), 'name');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x', threshold: 10 }), 'trigger_type');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x', trigger_type: 'spike' }), 'threshold');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x', trigger_type: 'spike', threshold: '10' }), 'threshold');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: '', trigger_type: 'spike', threshold: 10 }), 'name');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'x'.repeat(201), trigger_type: 'spike', threshold: 10 }), 'name');
  });

  it('cooldown_minutes is an integer 1..1440', async () => {
    for (const cooldown of [1, 1440]) {
      const res = await a.call('POST', '/v1/manage/alert-rules', { name: 'c', trigger_type: 'spike', threshold: 10, cooldown_minutes: cooldown });
      expect(res.status, res.raw).toBe(201);
      expect(res.body.data.cooldown_minutes).toBe(cooldown);
    }
    for (const cooldown of [0, 1441, 1.5, -60]) {
      expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'c', trigger_type: 'spike', threshold: 10, cooldown_minutes: cooldown }), 'cooldown_minutes');
    }
  });

  it('channels come from the five, without repeats', async () => {
    const ok = await a.createRule({ name: 'ch', trigger_type: 'spike', threshold: 10, channels: ['mcp', 'webhook'] });
    expect(ok.channels).toEqual(['mcp', 'webhook']);
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'ch', trigger_type: 'spike', threshold: 10, channels: ['sms'] }), 'channels.0');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'ch', trigger_type: 'spike', threshold: 10, channels: ['email', 'email'] }), 'channels');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'ch', trigger_type: 'spike', threshold: 10, channels: 'email' }), 'channels');
  });

  it('page_pattern is *, an exact path, or a path ending in * for a prefix', async () => {
    for (const pattern of ['*', '/checkout', '/checkout*', '/', '/orders/:id/items']) {
      const res = await a.call('POST', '/v1/manage/alert-rules', { name: 'p', trigger_type: 'budget', threshold: 50, page_pattern: pattern });
      expect(res.status, res.raw).toBe(201);
      expect(res.body.data.page_pattern).toBe(pattern);
    }
    for (const pattern of ['checkout', '/che*ckout', '**', '/a*b*', '']) {
      expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'p', trigger_type: 'budget', threshold: 50, page_pattern: pattern }), 'page_pattern');
    }
  });

  it('slack_channel is a string (or null), at most 80 characters', async () => {
    expect((await a.createRule({ name: 's', trigger_type: 'spike', threshold: 10, channels: ['slack'], slack_channel: '#checkout-alerts' })).slack_channel).toBe('#checkout-alerts');
    expect((await a.createRule({ name: 's', trigger_type: 'spike', threshold: 10, slack_channel: null })).slack_channel).toBeNull();
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 's', trigger_type: 'spike', threshold: 10, slack_channel: 'x'.repeat(81) }), 'slack_channel');
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 's', trigger_type: 'spike', threshold: 10, slack_channel: 42 }), 'slack_channel');
  });

  it('config is validated per trigger', async () => {
    const good: [string, number, Record<string, unknown>][] = [
      ['trend', 20, { increase_percent: 50 }],
      ['budget', 40, { period: 'monthly' }],
      ['stalled_signups', 50, { event: 'signup_completed', window_hours: 6, min_expected: 3 }],
      ['spike', 10, { recipients: ['a@example.com', 'b@example.com'] }],
    ];
    for (const [trigger, threshold, config] of good) {
      expect((await a.createRule({ name: 'cfg', trigger_type: trigger, threshold, config })).config).toEqual(config);
    }
    const bad: [string, number, Record<string, unknown>, string][] = [
      ['trend', 20, { increase_percent: 0 }, 'config.increase_percent'],
      ['trend', 20, { increase_percent: 'lots' }, 'config.increase_percent'],
      ['budget', 40, { period: 'yearly' }, 'config.period'],
      ['stalled_signups', 50, { window_hours: 0 }, 'config.window_hours'],
      ['stalled_signups', 50, { window_hours: 169 }, 'config.window_hours'],
      ['stalled_signups', 50, { min_expected: -1 }, 'config.min_expected'],
      ['stalled_signups', 50, { event: '' }, 'config.event'],
      ['spike', 10, { recipients: ['not-an-email'] }, 'config.recipients.0'],
      ['spike', 10, { period: 'daily' }, 'config.period'], // budget's field on another trigger
    ];
    for (const [trigger, threshold, config, field] of bad) {
      const res = await a.call('POST', '/v1/manage/alert-rules', { name: 'cfg', trigger_type: trigger, threshold, config });
      expect(res.status, `${trigger} ${JSON.stringify(config)}: ${res.raw}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(res.body.error.details.field, `${trigger} ${JSON.stringify(config)}`).toMatch(new RegExp(`^${field.split('.').slice(0, 2).join('\\.')}`));
    }
  });

  it('enabled is a boolean', async () => {
    expect((await a.createRule({ name: 'e', trigger_type: 'spike', threshold: 10, enabled: false })).enabled).toBe(false);
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'e', trigger_type: 'spike', threshold: 10, enabled: 'no' }), 'enabled');
  });

  it('refuses unknown fields, an empty body and malformed JSON with the contract codes', async () => {
    expectInvalid(await a.call('POST', '/v1/manage/alert-rules', { name: 'u', trigger_type: 'spike', threshold: 10, severity: 'high' }), 'severity');
    const key = (await h.org('Raw')).keys.secret;
    const noBody = await h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: { authorization: `Bearer ${key}` } });
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().error.code).toBe('empty_body');
    const badJson = await h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.code).toBe('invalid_json');
  });

  describe('PATCH is partial', () => {
    it('changes only the fields given, validated against the rule\'s trigger', async () => {
      const rule = await a.createRule({ name: 'Patch me', trigger_type: 'anomaly', threshold: 95, channels: ['email'], page_pattern: '/pricing', config: { recipients: ['x@example.com'] } });
      h.clock.advance(60_000);
      const res = await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { threshold: 99.5 });
      expect(res.status, res.raw).toBe(200);
      expect(res.body.data).toEqual({ ...rule, threshold: 99.5, updated_at: new Date(h.clock.now()).toISOString() });

      const next = await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, {
        name: 'Renamed', cooldown_minutes: 5, channels: [], page_pattern: '/pricing*', slack_channel: '#x', config: {}, enabled: false,
      });
      expect(next.status, next.raw).toBe(200);
      expect(next.body.data).toMatchObject({
        id: rule.id, trigger_type: 'anomaly', threshold: 99.5, name: 'Renamed', cooldown_minutes: 5, channels: [],
        page_pattern: '/pricing*', slack_channel: '#x', config: {}, enabled: false, created_at: rule.created_at,
      });
      // slack_channel null clears it; enabled true turns the rule back on.
      const cleared = await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { slack_channel: null, enabled: true });
      expect(cleared.body.data).toMatchObject({ slack_channel: null, enabled: true, name: 'Renamed' });
      const listed = (await a.get('/v1/manage/alert-rules')).rules.find((r: any) => r.id === rule.id);
      expect(listed).toEqual(cleared.body.data);
    });

    it('refuses a threshold out of the trigger\'s bounds, bad fields and trigger_type changes', async () => {
      const rule = await a.createRule({ name: 'Anomaly', trigger_type: 'anomaly', threshold: 95 });
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { threshold: 40 }), 'threshold');
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { cooldown_minutes: 0 }), 'cooldown_minutes');
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { channels: ['fax'] }), 'channels.0');
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { page_pattern: 'pricing' }), 'page_pattern');
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { config: { period: 'daily' } }), 'config.period');
      expectInvalid(await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { trigger_type: 'spike' }), 'trigger_type');
      const empty = await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, {});
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('invalid_input');
      // Nothing changed.
      const listed = (await a.get('/v1/manage/alert-rules')).rules.find((r: any) => r.id === rule.id);
      expect(listed).toEqual(rule);
    });

    it('a budget rule\'s config.period and a trend rule\'s increase_percent can be changed alone', async () => {
      const budget = await a.createRule({ name: 'b', trigger_type: 'budget', threshold: 30 });
      const res = await a.call('PATCH', `/v1/manage/alert-rules/${budget.id}`, { config: { period: 'weekly' } });
      expect(res.body.data.config).toEqual({ period: 'weekly' });
      expect(res.body.data.threshold).toBe(30);
    });
  });

  describe('DELETE', () => {
    it('deletes for good: gone from the list, a second delete or patch is 404', async () => {
      const rule = await a.createRule({ name: 'Doomed', trigger_type: 'positive', threshold: 10 });
      const res = await a.call('DELETE', `/v1/manage/alert-rules/${rule.id}`);
      expect(res.status, res.raw).toBe(200);
      expect(res.body.data).toEqual({ id: rule.id, deleted: true });
      expect((await a.get('/v1/manage/alert-rules')).rules.some((r: any) => r.id === rule.id)).toBe(false);
      expect((await a.call('DELETE', `/v1/manage/alert-rules/${rule.id}`)).body.error.code).toBe('not_found');
      const patch = await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { threshold: 20 });
      expect(patch.status).toBe(404);
      expect(patch.body.error.code).toBe('not_found');
    });
  });

  describe('errors and security', () => {
    it('a malformed rule id is 400 invalid_uuid; an unknown one 404 not_found', async () => {
      for (const method of ['PATCH', 'DELETE'] as const) {
        const bad = await a.call(method, '/v1/manage/alert-rules/not-a-uuid', method === 'PATCH' ? { threshold: 20 } : undefined);
        expect(bad.status, bad.raw).toBe(400);
        expect(bad.body.error.code).toBe('invalid_uuid');
        const unknown = await a.call(method, '/v1/manage/alert-rules/0190f5c2-0000-7000-8000-000000000000', method === 'PATCH' ? { threshold: 20 } : undefined);
        expect(unknown.status, unknown.raw).toBe(404);
        expect(unknown.body.error.code).toBe('not_found');
      }
    });

    it('another org\'s rule is 404 not_found, never 403, and stays untouched', async () => {
      const theirs = await other.createRule({ name: 'Theirs', trigger_type: 'spike', threshold: 10 });
      const patch = await a.call('PATCH', `/v1/manage/alert-rules/${theirs.id}`, { threshold: 99 });
      expect(patch.status).toBe(404);
      expect(patch.body.error.code).toBe('not_found');
      const del = await a.call('DELETE', `/v1/manage/alert-rules/${theirs.id}`);
      expect(del.status).toBe(404);
      const listed = (await other.get('/v1/manage/alert-rules')).rules.find((r: any) => r.id === theirs.id);
      expect(listed.threshold).toBe(10);
      // Nor can a site-scoped key create rules on another org's site.
      const create = await a.call('POST', '/v1/manage/alert-rules', { site_id: otherSiteId, name: 'x', trigger_type: 'spike', threshold: 10 });
      expect([403, 404]).toContain(create.status);
    });

    it('no credential is 401 missing_auth; an MCP key lacks manage:write', async () => {
      const none = await h.app.inject({ method: 'GET', url: '/v1/manage/alert-rules' });
      expect(none.statusCode).toBe(401);
      expect(none.json().error.code).toBe('missing_auth');
      const mcp = await api(h, mcpKey).call('POST', '/v1/manage/alert-rules', { name: 'x', trigger_type: 'spike', threshold: 10 });
      expect(mcp.status).toBe(403);
      expect(mcp.body.error.code).toBe('missing_scope');
    });

    it('a user token works like the secret key', async () => {
      const org = await h.org('Jwt');
      const token = await h.login(org.email, org.password);
      const res = await api(h, token).call('POST', '/v1/manage/alert-rules', { site_id: org.site_id, name: 'By a person', trigger_type: 'new_page', threshold: 30 });
      expect(res.status, res.raw).toBe(201);
      expect(res.body.data.site_id).toBe(org.site_id);
    });
  });
});
