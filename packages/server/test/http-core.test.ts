// The HTTP core: envelope on every response, error codes for malformed requests, request ids,
// 404/405, body limits, and duck facts. Both dialects.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { ManualClock } from '../src/clock.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { MemoryRateLimiter } from '../src/store/rate-limit.ts';
import { bearer, createTestStore, T0, TEST_SECRET, testConfig, eachDialect, useHarness, type Org } from './helpers/harness.ts';

eachDialect('HTTP core', ({ name, skip }) => {
  const h = useHarness(name);
  let org: Org;
  beforeAll(async () => {
    org = await h.org('Core');
  });

  const json = { 'content-type': 'application/json' };

  it.skipIf(skip)('wraps success in the envelope and sets x-request-id', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toBeNull();
    expect(res.json().data.org.id).toBe(org.org_id);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.skipIf(skip)('echoes a sane incoming x-request-id', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it.skipIf(skip)('unknown route is 404 not_found in the envelope', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ data: null, error: { code: 'not_found', message: expect.any(String), status: 404 } });
  });

  it.skipIf(skip)('a path the router refuses (bad percent-encoding, a parameter too long) is 400 invalid_input in the envelope', async () => {
    const refused = [
      { method: 'GET', url: '/v1/query/issues/%FF', reason: 'bad percent-encoding' },
      { method: 'GET', url: '/sdk/%E0%A4%A', reason: 'bad percent-encoding' },
      { method: 'DELETE', url: '/v1/manage/webhooks/%FF', reason: 'bad percent-encoding' },
      { method: 'GET', url: `/v1/query/issues/${'a'.repeat(513)}`, reason: 'too long' },
    ] as const;
    for (const { method, url, reason } of refused) {
      const res = await h.app.inject({ method, url, headers: { ...bearer(org.keys.secret), 'x-request-id': 'router-1' } });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.headers['x-request-id'], url).toBe('router-1');
      expect(res.json(), url).toEqual({ data: null, error: { code: 'invalid_input', message: expect.any(String), status: 400, details: { field: 'path', reason } } });
    }
    // Longer than Fastify's default of 100 but within the router's limit: the route's own check answers.
    const long = await h.app.inject({ method: 'GET', url: `/v1/query/issues/${'a'.repeat(120)}`, headers: bearer(org.keys.secret) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatchObject({ code: 'invalid_uuid', details: { field: 'issue_id' } });
  });

  it.skipIf(skip)('wrong method on a known path is 405 with Allow', async () => {
    const res = await h.app.inject({ method: 'PUT', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(res.statusCode).toBe(405);
    expect(res.json().error.code).toBe('method_not_allowed');
    expect(res.headers.allow).toContain('GET');
    const del = await h.app.inject({ method: 'GET', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret) });
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toContain('PATCH');
  });

  it.skipIf(skip)('write without a body is 400 empty_body', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('empty_body');
    const emptyJson = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), ...json }, payload: '' });
    expect(emptyJson.json().error.code).toBe('empty_body');
  });

  it.skipIf(skip)('a route that takes no body accepts an empty JSON one (clients that always send the header)', async () => {
    const jwt = await h.login(org.email, org.password);
    const rule = await h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: bearer(org.keys.secret), payload: { name: 'r', trigger_type: 'spike', threshold: 10, channels: ['mcp'] } });
    expect(rule.statusCode).toBe(201);
    const del = await h.app.inject({ method: 'DELETE', url: `/v1/manage/alert-rules/${rule.json().data.id}`, headers: { ...bearer(org.keys.secret), ...json }, payload: '' });
    expect(del.statusCode).toBe(200);
    expect(del.json().data).toEqual({ id: rule.json().data.id, deleted: true });
    const logout = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { ...bearer(jwt), ...json }, payload: '' });
    expect(logout.statusCode).toBe(200);
    // Whitespace is not an empty body: it is not JSON.
    const blank = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), ...json }, payload: '  ' });
    expect(blank.json().error.code).toBe('invalid_json');
  });

  it.skipIf(skip)('a user token names the site of a deploy or an annotation in the query string or the body', async () => {
    const jwt = await h.login(org.email, org.password);
    for (const path of ['/v1/manage/deploys', '/v1/manage/annotations']) {
      const payload = path.endsWith('deploys') ? { version: 'q1' } : { message: 'from the query' };
      const missing = await h.app.inject({ method: 'POST', url: path, headers: bearer(jwt), payload });
      expect(missing.json().error.code, path).toBe('missing_site_id');
      const byQuery = await h.app.inject({ method: 'POST', url: `${path}?site_id=${org.site_id}`, headers: bearer(jwt), payload });
      expect(byQuery.statusCode, path).toBe(201);
      expect(byQuery.json().data.site_id).toBe(org.site_id);
      const byBody = await h.app.inject({ method: 'POST', url: path, headers: bearer(jwt), payload: { ...payload, site_id: org.site_id } });
      expect(byBody.statusCode, path).toBe(201);
      const other = await h.org('Elsewhere');
      const foreign = await h.app.inject({ method: 'POST', url: `${path}?site_id=${other.site_id}`, headers: bearer(jwt), payload });
      expect(foreign.statusCode, path).toBe(404);
    }
  });

  it.skipIf(skip)('truncated JSON is 400 invalid_json', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), ...json }, payload: '{"name": "x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_json', status: 400 });
  });

  it.skipIf(skip)('a non-JSON content type is 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), 'content-type': type }, payload: 'name=x' });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error.code).toBe('unsupported_media_type');
    }
  });

  it.skipIf(skip)('a 2 MB body is 413 payload_too_large', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), ...json }, payload });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it.skipIf(skip)('a JSON array where an object is needed is 400 invalid_input', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { ...bearer(org.keys.secret), ...json }, payload: '[]' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'body' } });
  });

  it.skipIf(skip)('unknown fields are 400 invalid_input naming the field', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret), payload: { name: 'ok', colour: 'green' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'colour' } });
  });

  it.skipIf(skip)('a malformed id in the path is 400 invalid_uuid', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: '/v1/manage/site/not-a-uuid', headers: bearer(org.keys.secret), payload: { name: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_uuid');
  });

  it.skipIf(skip)('checks run in the documented order: 401 before body errors, body before id, id before 403', async () => {
    const noAuth = await h.app.inject({ method: 'PATCH', url: '/v1/manage/site/bad', headers: json, payload: '{' });
    expect(noAuth.json().error.code).toBe('missing_auth');
    const badBody = await h.app.inject({ method: 'PATCH', url: '/v1/manage/site/bad', headers: { ...bearer(org.keys.secret), ...json }, payload: '{' });
    expect(badBody.json().error.code).toBe('invalid_json');
    const badId = await h.app.inject({ method: 'PATCH', url: '/v1/manage/site/bad', headers: bearer(org.keys.publishable), payload: { name: 'x' } });
    expect(badId.json().error.code).toBe('invalid_uuid');
    const scope = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.publishable), payload: { zzz: 1 } });
    expect(scope.json().error.code).toBe('missing_scope');
  });

  it.skipIf(skip)('health, readiness and metrics answer without auth', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ data: { status: 'ok' }, error: null });
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ data: { status: 'ready' }, error: null });
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('mallard_http_requests_total');
  });

});

describe('HTTP core: unexpected failures', () => {
  it('a store failure is 500 internal_error, logged, with nothing internal in the response', async () => {
    const lines: string[] = [];
    const testStore = await createTestStore('sqlite');
    const app = await buildApp({
      config: testConfig(), store: testStore.store, clock: new ManualClock(T0), limiter: new MemoryRateLimiter(),
      logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
    });
    const org = await bootstrapOrg(testStore.store, new Secrets(TEST_SECRET), { org: 'Broken', siteName: 's', siteUrl: 'https://s.example', email: 'broken@example.com', password: 'password-123' }, T0);
    await testStore.store.close(); // every query now fails inside the driver
    const res = await app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ data: null, error: { code: 'internal_error', message: expect.any(String), status: 500 } });
    expect(res.body).not.toMatch(/sqlite|kysely|driver|destroy/i);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(logged?.reqId).toBe(res.headers['x-request-id']);
    await app.close();
  });
});
