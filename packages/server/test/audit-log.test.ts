// GET /v1/manage/audit-log: admins of the org read who changed what, newest first, filtered
// and paged, with the request id and client address, and never a secret. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

interface Entry {
  id: string; created_at: string; actor_type: string; actor_id: string | null; action: string; target_type: string;
  target_id: string | null; site_id: string | null; request_id: string | null; ip: string | null; details: Record<string, unknown> | null;
}

eachDialect('audit log', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let a: Org;
  let b: Org;
  let webhookSecret: string;
  let routingKey: string;
  let deployId: string;
  let ruleId: string;
  let t1: number;

  const read = async (jwt: string, query = '') => h.app.inject({ method: 'GET', url: `/v1/manage/audit-log${query}`, headers: bearer(jwt) });
  const entries = async (query = '') => {
    const res = await read(a.jwt, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { entries: Entry[]; total: number; offset: number; limit: number };
  };
  const post = async (url: string, payload: object, headers: Record<string, string> = {}) => {
    const res = await h.app.inject({ method: 'POST', url, headers: { ...bearer(a.jwt), ...headers }, payload, remoteAddress: '192.0.2.44' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  beforeAll(async () => {
    a = await h.org('Audit A');
    b = await h.org('Audit B');
    webhookSecret = 'audit-webhook-secret-0123456789';
    routingKey = 'audit-routing-key-abcdef';
    h.clock.advance(1000);
    await post('/v1/manage/webhooks', { site_id: a.site_id, url: 'http://127.0.0.1:9/audit', events: ['alert.fired'], secret: webhookSecret });
    h.clock.advance(1000);
    await post('/v1/manage/integrations', { site_id: a.site_id, provider: 'pagerduty', config: { routing_key: routingKey } });
    h.clock.advance(1000);
    t1 = h.clock.now();
    ruleId = (await post('/v1/manage/alert-rules', { site_id: a.site_id, name: 'Budget', trigger_type: 'budget', threshold: 10 })).id;
    h.clock.advance(1000);
    deployId = (await post(`/v1/manage/deploys?site_id=${a.site_id}`, { version: 'v9' }, { 'x-request-id': 'ci-run-42' })).id;
    h.clock.advance(1000);
    const patched = await h.app.inject({ method: 'PATCH', url: `/v1/manage/alert-rules/${ruleId}`, headers: bearer(a.jwt), payload: { threshold: 20 } });
    expect(patched.statusCode, patched.body).toBe(200);
    // Org B's own change, which A must never see.
    h.clock.advance(1000);
    const other = await h.app.inject({ method: 'POST', url: `/v1/manage/deploys?site_id=${b.site_id}`, headers: bearer(b.jwt), payload: { version: 'b1' } });
    expect(other.statusCode).toBe(201);
  });

  it.skipIf(skip)('lists the org\'s writes newest first with actor, action, target, time, request id and address', async () => {
    const page = await entries();
    const actions = page.entries.map((e) => e.action);
    expect(actions.slice(0, 4)).toEqual(['alert_rule.updated', 'deploy.recorded', 'alert_rule.created', 'integration.created']);
    expect(page.total).toBe(page.entries.length);
    const times = page.entries.map((e) => Date.parse(e.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const deploy = page.entries.find((e) => e.action === 'deploy.recorded')!;
    expect(deploy).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: new Date(t1 + 1000).toISOString(), actor_type: 'user', actor_id: a.user_id,
      action: 'deploy.recorded', target_type: 'deploy', target_id: deployId, site_id: a.site_id, request_id: 'ci-run-42', ip: '192.0.2.44',
      details: { version: 'v9', environment: 'production' },
    });
    expect(page.entries.find((e) => e.action === 'alert_rule.updated')!.details).toEqual({ fields: ['threshold'] });
  });

  it.skipIf(skip)('never holds a secret: webhook and integration secrets stay out of every entry', async () => {
    const body = JSON.stringify(await entries());
    expect(body).not.toContain(webhookSecret);
    expect(body).not.toContain(routingKey);
    expect(body).toContain('integration.created');
  });

  it.skipIf(skip)('filters by actor, action (exact or a family), target, site and time range, and pages', async () => {
    expect((await entries(`?target=${ruleId}`)).entries.map((e) => e.action)).toEqual(['alert_rule.updated', 'alert_rule.created']);
    expect((await entries('?action=alert_rule.*')).entries.map((e) => e.target_id)).toEqual([ruleId, ruleId]);
    expect((await entries('?action=deploy.recorded')).entries.map((e) => e.target_id)).toEqual([deployId]);
    expect((await entries(`?actor=${a.user_id}&site_id=${a.site_id}`)).total).toBe(5);
    expect((await entries('?actor=00000000-0000-4000-8000-000000000000')).total).toBe(0);
    const window = await entries(`?from=${encodeURIComponent(new Date(t1).toISOString())}&to=${encodeURIComponent(new Date(t1 + 2000).toISOString())}`);
    expect(window.entries.map((e) => e.action)).toEqual(['deploy.recorded', 'alert_rule.created']);
    const all = await entries();
    const paged = await entries('?offset=1&limit=2');
    expect(paged).toMatchObject({ offset: 1, limit: 2, total: all.total });
    expect(paged.entries.map((e) => e.id)).toEqual(all.entries.slice(1, 3).map((e) => e.id));
  });

  it.skipIf(skip)('bad filters are 400 invalid_input naming the field', async () => {
    for (const [query, field] of [['?from=yesterday', 'from'], ['?limit=0', 'limit'], ['?action=DROP TABLE', 'action'], [`?from=${new Date(t1).toISOString()}&to=${new Date(t1 - 1).toISOString()}`, 'to'], ['?colour=red', 'colour']] as const) {
      const res = await read(a.jwt, query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
      expect(res.json().error.details.field, query).toBe(field);
    }
  });

  it.skipIf(skip)('admins only, with a user token; another org sees none of it, and naming its site is 404', async () => {
    const member = await h.user(a, 'member');
    expect((await read(member.jwt)).json().error.code).toBe('insufficient_role');
    const admin = await h.user(a, 'admin');
    expect((await read(admin.jwt)).statusCode).toBe(200);
    const keyed = await h.app.inject({ method: 'GET', url: '/v1/manage/audit-log', headers: bearer(a.keys.secret) });
    expect(keyed.statusCode).toBe(401);
    expect(keyed.json().error.code).toBe('jwt_required');

    const theirs = await read(b.jwt);
    expect(theirs.statusCode).toBe(200);
    const body = JSON.stringify(theirs.json().data);
    for (const id of [ruleId, deployId, a.site_id, a.user_id]) expect(body).not.toContain(id);
    const cross = await read(b.jwt, `?site_id=${a.site_id}`);
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error.code).toBe('not_found');
  });
});
