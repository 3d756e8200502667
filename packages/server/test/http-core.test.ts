// The HTTP core: envelope on every response, error codes for malformed requests, request ids,
// 404/405, body limits, and duck facts. Both dialects.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
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

// What Node's HTTP parser refuses never reaches a route, and a closing server refuses new
// requests: over a real loopback socket, every one of these still answers in the envelope.
describe('HTTP core: answers before any route, over a socket', () => {
  async function listening(requestTimeoutMs = 30_000) {
    const testStore = await createTestStore('sqlite');
    const app = await buildApp({ config: testConfig(), store: testStore.store, clock: new ManualClock(T0), limiter: new MemoryRateLimiter(), requestTimeoutMs });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { app, port, close: async () => { await app.close(); await testStore.store.close(); } };
  }

  /** Writes raw bytes (and optionally waits before the end), then reads until the server closes. */
  function exchange(port: number, chunks: string[]): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => { text += d; });
      socket.on('error', reject);
      socket.on('close', () => {
        const [head, body = ''] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head, body });
      });
      for (const chunk of chunks) socket.write(chunk);
    });
  }

  const envelope = (code: string, status: number) => ({ data: null, error: expect.objectContaining({ code, status, message: expect.any(String) }) });

  it('not HTTP at all: 400 invalid_input', async () => {
    const s = await listening();
    try {
      const res = await exchange(s.port, ['HELLO THERE\r\n\r\n']);
      expect(res.status).toBe(400);
      expect(res.headers).toMatch(/content-type: application\/json/i);
      expect(res.headers).toMatch(/x-request-id: [0-9a-f-]{36}/i);
      expect(JSON.parse(res.body)).toEqual(envelope('invalid_input', 400));
    } finally { await s.close(); }
  });

  it('headers larger than the server takes: 431 headers_too_large', async () => {
    const s = await listening();
    try {
      const res = await exchange(s.port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body)).toEqual(envelope('headers_too_large', 431));
    } finally { await s.close(); }
  });

  it('a client that never finishes its request: 408 request_timeout', async () => {
    const s = await listening(200);
    try {
      // Headers sent, the promised body never comes.
      const res = await exchange(s.port, ['POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"em']);
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body)).toEqual(envelope('request_timeout', 408));
    } finally { await s.close(); }
  });

  it('a request on a kept-alive connection while the server closes: 503 unavailable, and in-flight work finishes', async () => {
    const s = await listening();
    const socket = connect(s.port, '127.0.0.1');
    socket.setEncoding('utf8');
    let text = '';
    socket.on('data', (d) => { text += d; });
    const socketClosed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    // A login whose body is still arriving keeps the connection busy while close() starts;
    // the next request comes pipelined right behind the rest of that body.
    socket.write('POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = s.app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    await socketClosed;
    const responses = text.split('HTTP/1.1 ').slice(1);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^400 /); // the login ran to its answer (empty credentials), not cut off
    expect(responses[1]).toMatch(/^503 /);
    expect(responses[1]).toMatch(/connection: close/i);
    expect(JSON.parse(responses[1].split('\r\n\r\n')[1])).toEqual(envelope('unavailable', 503));
  });
});
