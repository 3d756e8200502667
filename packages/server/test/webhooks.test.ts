// Webhook routes: register (secret shown once, sealed at rest), list, partial update, delete,
// the delivery log, the retry and test routes; validation with the contract's codes; who may
// call them. Both dialects, against a local receiver on 127.0.0.1.
import { beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, Receiver } from './helpers/delivery-kit.ts';

// Every socket of this file may only reach loopback.
installLoopbackGuard();

eachDialect('webhook routes', ({ name, skip }) => {
  let receiver: Receiver;
  /** Every secret these tests created: none may show up in a later response or in the logs. */
  const secretsSeen: string[] = [];

  beforeAll(async () => { receiver = await new Receiver().start(); });
  const h = useHarness(name, deliveryOptions());
  deliverySuiteHooks(h, () => receiver);

  const create = (token: string, payload: object) => h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(token), payload });
  const list = (token: string, siteId?: string) => h.app.inject({ method: 'GET', url: `/v1/manage/webhooks${siteId ? `?site_id=${siteId}` : ''}`, headers: bearer(token) });
  const patch = (token: string, id: string, payload: object) => h.app.inject({ method: 'PATCH', url: `/v1/manage/webhooks/${id}`, headers: bearer(token), payload });
  const remove = (token: string, id: string) => h.app.inject({ method: 'DELETE', url: `/v1/manage/webhooks/${id}`, headers: bearer(token) });
  const sendTest = (token: string, id: string) => h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${id}/test`, headers: bearer(token) });
  const deliveries = (token: string, id: string, query = '') => h.app.inject({ method: 'GET', url: `/v1/manage/webhooks/${id}/deliveries${query}`, headers: bearer(token) });

  async function hook(org: Org, path = '/hook', extra: object = {}) {
    const res = await create(org.keys.secret, { url: receiver.url(path), events: ['issue.created', 'alert.fired'], ...extra });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    if (data.secret) secretsSeen.push(data.secret);
    return data as { id: string; secret?: string; url: string };
  }

  it.skipIf(skip)('POST registers a webhook: 201, a generated whsec_ secret shown once, sealed at rest, one audit row', async () => {
    const org = await h.org();
    const res = await create(org.keys.secret, { site_id: org.site_id, url: receiver.url('/a'), events: ['issue.created', 'deploy.recorded'] });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ site_id: org.site_id, url: receiver.url('/a'), events: ['issue.created', 'deploy.recorded'], enabled: true });
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(data.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    secretsSeen.push(data.secret);

    const row = await h.store.db.selectFrom('webhooks').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(data.secret);
    expect(row.secret_enc).not.toContain(data.secret.slice(6));
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(h.secrets.decrypt(row.secret_enc)).toBe(data.secret);
    const audit = await h.store.db.selectFrom('audit_log').selectAll().where('org_id', '=', org.org_id).where('action', '=', 'webhook.created').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0].details ?? '').not.toContain(data.secret);
  });

  it.skipIf(skip)('a secret given by the caller is kept (sealed) and never echoed, not even at creation', async () => {
    const org = await h.org();
    const secret = 'my-own-signing-secret-0123456789';
    secretsSeen.push(secret);
    const res = await create(org.keys.secret, { url: receiver.url('/b'), events: ['alert.fired'], secret, enabled: false });
    expect(res.statusCode).toBe(201);
    expect(res.body).not.toContain(secret);
    expect(res.json().data.secret).toBeUndefined();
    expect(res.json().data.enabled).toBe(false);
    const row = await h.store.db.selectFrom('webhooks').selectAll().where('id', '=', res.json().data.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(secret);
    expect(h.secrets.decrypt(row.secret_enc)).toBe(secret);
  });

  it.skipIf(skip)('GET lists the site\'s webhooks without secrets; another org and another site see none of them', async () => {
    const org = await h.org();
    const a = await hook(org, '/l1');
    const b = await hook(org, '/l2', { events: ['deploy.recorded'] });
    const res = await list(org.keys.secret);
    expect(res.statusCode).toBe(200);
    const hooks = res.json().data.webhooks;
    expect(hooks.map((w: { id: string }) => w.id)).toEqual([a.id, b.id]);
    for (const w of hooks) expect(Object.keys(w).sort()).toEqual(['created_at', 'enabled', 'events', 'id', 'rotation_ends_at', 'site_id', 'updated_at', 'url']);
    expect(res.body).not.toContain(a.secret!);
    expect(res.body).not.toContain(b.secret!);
    expect(res.body).not.toContain('secret');

    const other = await h.org();
    expect((await list(other.keys.secret)).json().data.webhooks).toEqual([]);
    // Naming a site of another org is not found, never its hooks.
    const cross = await list(other.keys.secret, org.site_id);
    expect(cross.statusCode).toBe(404);
  });

  it.skipIf(skip)('PATCH is partial (url, events, enabled), returns the record without the secret, and keeps the secret', async () => {
    const org = await h.org();
    const w = await hook(org, '/p1');
    const before = (await h.store.db.selectFrom('webhooks').select('secret_enc').where('id', '=', w.id).executeTakeFirstOrThrow()).secret_enc;
    h.clock.advance(1000);
    const res = await patch(org.keys.secret, w.id, { enabled: false });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: w.id, url: receiver.url('/p1'), events: ['issue.created', 'alert.fired'], enabled: false });
    expect(res.json().data.updated_at).not.toBe(res.json().data.created_at);
    expect(res.json().data.secret).toBeUndefined();

    const res2 = await patch(org.keys.secret, w.id, { url: receiver.url('/p2'), events: ['score.spike'] });
    expect(res2.statusCode).toBe(200);
    expect(res2.json().data).toMatchObject({ url: receiver.url('/p2'), events: ['score.spike'], enabled: false });
    const row = await h.store.db.selectFrom('webhooks').selectAll().where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).toBe(before);
    expect(h.secrets.decrypt(row.secret_enc)).toBe(w.secret);
    expect(res2.body).not.toContain(w.secret!);
  });

  it.skipIf(skip)('DELETE removes the webhook: 200 { id, deleted: true }, then 404 for it', async () => {
    const org = await h.org();
    const w = await hook(org);
    const res = await remove(org.keys.secret, w.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ id: w.id, deleted: true });
    expect((await list(org.keys.secret)).json().data.webhooks).toEqual([]);
    for (const again of [await remove(org.keys.secret, w.id), await patch(org.keys.secret, w.id, { enabled: true }), await sendTest(org.keys.secret, w.id), await deliveries(org.keys.secret, w.id)]) {
      expect(again.statusCode).toBe(404);
      expect(again.json().error.code).toBe('not_found');
    }
  });

  it.skipIf(skip)('create and update validate every field with the contract\'s codes', async () => {
    const org = await h.org();
    const token = org.keys.secret;
    const cases: [object, string, string][] = [
      [{ events: ['issue.created'] }, 'invalid_input', 'url'],
      [{ url: receiver.url() }, 'invalid_input', 'events'],
      [{ url: receiver.url(), events: [] }, 'invalid_input', 'events'],
      [{ url: receiver.url(), events: ['issue.deleted'] }, 'invalid_input', 'events.0'],
      [{ url: receiver.url(), events: ['issue.created', 'issue.created'] }, 'invalid_input', 'events'],
      [{ url: receiver.url(), events: 'issue.created' }, 'invalid_input', 'events'],
      [{ url: receiver.url(), events: ['issue.created'], secret: 'short' }, 'invalid_input', 'secret'],
      [{ url: receiver.url(), events: ['issue.created'], enabled: 'yes' }, 'invalid_input', 'enabled'],
      [{ url: receiver.url(), events: ['issue.created'], colour: 'teal' }, 'invalid_input', 'colour'],
      [{ url: 'not a url', events: ['issue.created'] }, 'invalid_input', 'url'],
      [{ url: 'ftp://127.0.0.1/x', events: ['issue.created'] }, 'invalid_input', 'url'],
      [{ url: 'http://user:pw@127.0.0.1/x', events: ['issue.created'] }, 'invalid_input', 'url'],
      [{ url: '', events: ['issue.created'] }, 'invalid_input', 'url'],
    ];
    for (const [payload, code, field] of cases) {
      const res = await create(token, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code, JSON.stringify(payload)).toBe(code);
      expect(res.json().error.details.field, JSON.stringify(payload)).toBe(field);
    }
    const bad = await create(token, { site_id: 'nope', url: receiver.url(), events: ['issue.created'] });
    expect(bad.statusCode).toBe(400);
    expect((await h.store.db.selectFrom('webhooks').select('id').where('site_id', '=', org.site_id).execute())).toHaveLength(0);

    const w = await hook(org);
    for (const [payload, field] of [[{}, 'body'], [{ secret: 'a-new-secret-0123456789' }, 'secret'], [{ events: [] }, 'events'], [{ url: 'gopher://x' }, 'url'], [{ enabled: 1 }, 'enabled']] as const) {
      const res = await patch(token, w.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
      expect(res.json().error.details.field, JSON.stringify(payload)).toBe(field);
    }
    const noBody = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(token) });
    expect(noBody.json().error.code).toBe('empty_body');
    for (const res of [await patch(token, 'not-a-uuid', { enabled: true }), await remove(token, '123'), await sendTest(token, 'x'), await deliveries(token, 'x')]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_uuid');
    }
    const retry = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${w.id}/deliveries/nope/retry`, headers: bearer(token) });
    expect(retry.json().error).toMatchObject({ code: 'invalid_uuid', details: { field: 'delivery_id' } });
    const missing = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${w.id}/deliveries/0190a000-0000-7000-8000-000000000000/retry`, headers: bearer(token) });
    expect(missing.statusCode).toBe(404);
    const badStatus = await deliveries(token, w.id, '?status=lost');
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json().error.code).toBe('invalid_status');
  });

  it.skipIf(skip)('who may call: viewers read, admins write, mcp and publishable keys never, a webhook:write key may, other orgs get 404', async () => {
    const org = await h.org();
    const w = await hook(org);
    const owner = org.jwt;
    const viewer = (await h.user(org, 'viewer')).jwt;
    const member = (await h.user(org, 'member')).jwt;

    expect((await list(viewer, org.site_id)).statusCode).toBe(200);
    // A user token is org-level: it must name the site.
    expect((await list(viewer)).json().error.code).toBe('missing_site_id');
    expect((await deliveries(viewer, w.id)).statusCode).toBe(200);
    for (const token of [viewer, member]) {
      const res = await create(token, { site_id: org.site_id, url: receiver.url(), events: ['issue.created'] });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('insufficient_role');
      expect((await patch(token, w.id, { enabled: false })).json().error.code).toBe('insufficient_role');
      expect((await remove(token, w.id)).json().error.code).toBe('insufficient_role');
      expect((await sendTest(token, w.id)).json().error.code).toBe('insufficient_role');
    }
    for (const key of [org.keys.mcp, org.keys.publishable]) {
      expect((await list(key)).json().error.code).toBe('missing_scope');
      expect((await create(key, { url: receiver.url(), events: ['issue.created'] })).json().error.code).toBe('missing_scope');
    }
    const made = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(owner), payload: { key_type: 'secret', site_id: org.site_id, scopes: ['webhook:write'] } });
    expect(made.statusCode).toBe(201);
    const hookKey = made.json().data.key as string;
    expect((await create(hookKey, { url: receiver.url('/k'), events: ['issue.created'] })).statusCode).toBe(201);
    expect((await patch(hookKey, w.id, { enabled: true })).statusCode).toBe(200);
    // ...but only webhooks: the scope does not open the rest of /manage.
    const rules = await h.app.inject({ method: 'GET', url: '/v1/manage/integrations', headers: bearer(hookKey) });
    expect(rules.json().error.code).toBe('missing_scope');
    expect((await create(owner, { site_id: org.site_id, url: receiver.url('/o'), events: ['alert.fired'] })).statusCode).toBe(201);
    expect((await h.app.inject({ method: 'GET', url: '/v1/manage/webhooks' })).json().error.code).toBe('missing_auth');

    const other = await h.org();
    for (const res of [await patch(other.keys.secret, w.id, { enabled: false }), await remove(other.keys.secret, w.id), await sendTest(other.keys.secret, w.id), await deliveries(other.keys.secret, w.id)]) {
      expect(res.statusCode).toBe(404);
    }
    expect(receiver.requests).toHaveLength(0);
    const still = await h.store.db.selectFrom('webhooks').selectAll().where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(still.enabled).toBe(1);
  });

  it.skipIf(skip)('POST /{id}/test sends one signed webhook.test event and records it in the delivery log', async () => {
    const org = await h.org();
    const w = await hook(org, '/t');
    const res = await sendTest(org.keys.secret, w.id);
    expect(res.statusCode).toBe(200);
    const delivery = res.json().data;
    expect(delivery).toMatchObject({ webhook_id: w.id, event_type: 'webhook.test', status: 'delivered', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(delivery.attempt_log).toHaveLength(1);
    expect(delivery.attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    expect(delivery.payload).toMatchObject({ type: 'webhook.test', site_id: org.site_id, data: { webhook_id: w.id } });
    expect(res.body).not.toContain(w.secret!);

    expect(receiver.to('/t')).toHaveLength(1);
    const got = receiver.to('/t')[0];
    expect(got.headers['webhook-id']).toBe(delivery.id);
    const verified = new Webhook(w.secret!).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(delivery.payload);

    const log = await deliveries(org.keys.secret, w.id);
    expect(log.statusCode).toBe(200);
    expect(log.json().data).toMatchObject({ total: 1, offset: 0, limit: 50 });
    expect(log.json().data.deliveries[0]).toMatchObject({ id: delivery.id, status: 'delivered' });
  });

  it.skipIf(skip)('a failing test send is recorded as failed, not retried; the retry route re-sends it under the same webhook-id', async () => {
    const org = await h.org();
    const w = await hook(org, '/down');
    let up = false;
    receiver.respond((r) => (r.url === '/down' && !up ? { status: 503, body: 'maintenance' } : undefined));
    const res = await sendTest(org.keys.secret, w.id);
    const failed = res.json().data;
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 503, last_error: 'HTTP 503', next_attempt_at: null, delivered_at: null });

    const onlyFailed = await deliveries(org.keys.secret, w.id, '?status=failed');
    expect(onlyFailed.json().data.total).toBe(1);
    expect((await deliveries(org.keys.secret, w.id, '?status=delivered')).json().data.total).toBe(0);

    up = true;
    const retry = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${w.id}/deliveries/${failed.id}/retry`, headers: bearer(org.keys.secret) });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data).toMatchObject({ id: failed.id, status: 'delivered', last_status_code: 200, last_error: null });
    expect(retry.json().data.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([503, 200]);
    const sent = receiver.to('/down');
    expect(sent).toHaveLength(2);
    expect(sent[0].headers['webhook-id']).toBe(failed.id);
    expect(sent[1].headers['webhook-id']).toBe(failed.id);
    for (const r of sent) new Webhook(w.secret!).verify(r.body, r.headers as Record<string, string>);
    // The delivery log tells the same story as the retry route, in the order it happened.
    for (let i = 0; i < 3; i++) {
      const logged = (await deliveries(org.keys.secret, w.id)).json().data.deliveries[0];
      expect(logged.attempt_log.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([[1, 503], [2, 200]]);
    }
    // A retry route in another org's hands is not found.
    const other = await h.org();
    const cross = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${w.id}/deliveries/${failed.id}/retry`, headers: bearer(other.keys.secret) });
    expect(cross.statusCode).toBe(404);
  });

  it.skipIf(skip)('the delivery log pages newest first', async () => {
    const org = await h.org();
    const w = await hook(org, '/pages');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000);
      ids.push((await sendTest(org.keys.secret, w.id)).json().data.id);
    }
    const page = await deliveries(org.keys.secret, w.id, '?limit=2&offset=1');
    expect(page.json().data).toMatchObject({ total: 3, offset: 1, limit: 2 });
    expect(page.json().data.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1], ids[0]]);
  });

  it.skipIf(skip)('no secret ever appears in a later response or in the logs', async () => {
    expect(secretsSeen.length).toBeGreaterThan(3);
    const logs = h.logs.join('');
    expect(logs).toContain('/v1/manage/webhooks');
    for (const secret of secretsSeen) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.replace(/^whsec_/, ''));
    }
  });
});
