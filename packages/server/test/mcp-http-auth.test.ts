// POST /v1/mcp as an HTTP endpoint: who may call it (the /query credentials, 401 with
// WWW-Authenticate naming the OAuth protected-resource metadata; the OAuth flow itself is
// mcp-oauth.test.ts), browsers from other origins,
// another org's site, the methods it does not take, and that the query rate limit does not count it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from './helpers/harness.ts';
import { listen } from './helpers/mcp-kit.ts';
import { DEFAULT_RATE_LIMITS } from '../src/config.ts';

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('POST /v1/mcp over HTTP', () => {
  let h: Harness;
  let base: string;
  let org: Awaited<ReturnType<Harness['org']>>;
  let other: Awaited<ReturnType<Harness['org']>>;

  beforeAll(async () => {
    // The public URL is what a browser's Origin must match.
    h = await createHarness('sqlite', { config: { publicUrl: 'https://mallard.example', rateLimits: { ...DEFAULT_RATE_LIMITS, query: 5 } } });
    org = await h.org('Auth');
    other = await h.org('Elsewhere');
    base = await listen(h);
  });
  afterAll(async () => h?.close());

  const post = (headers: Record<string, string>, body: unknown = PING, query = '') =>
    fetch(`${base}/v1/mcp${query}`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
  const envelope = async (res: Response) => (await res.json()) as { data: null; error: { code: string; status: number } };

  it('answers a ping with a JSON-RPC result for an MCP key, a secret key with query:read and a user token', async () => {
    for (const key of [org.keys.mcp, org.keys.secret, await h.login(org.email, org.password)]) {
      h.clock.advance(60_000); // a fresh rate-limit window for each
      const res = await post(bearer(key));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull(); // stateless
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
  });

  it('refuses a missing or wrong credential with 401 and WWW-Authenticate naming the protected-resource metadata', async () => {
    const metadata = 'Bearer resource_metadata="https://mallard.example/.well-known/oauth-protected-resource/v1/mcp"';
    for (const [headers, code] of [[{}, 'missing_auth'], [bearer('svc_mcp_wrongwrongwrongwrongwrongwrongwrong1'), 'invalid_key'], [{ authorization: 'Basic abc' }, 'missing_auth'], [bearer('a.b.c'), 'invalid_jwt']] as const) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(metadata);
      expect(await envelope(res)).toMatchObject({ data: null, error: { code, status: 401 } });
    }
    // Something shaped like an OAuth access token that Mallard never issued says so, so a client refreshes.
    const unknown = await post(bearer('A'.repeat(43)));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe(`${metadata}, error="invalid_token"`);
    expect(await envelope(unknown)).toMatchObject({ data: null, error: { code: 'invalid_token', status: 401 } });
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1/mcp']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ resource: 'https://mallard.example/v1/mcp', authorization_servers: ['https://mallard.example'] });
    }
  });

  it('refuses a publishable key (403 missing_scope)', async () => {
    h.clock.advance(60_000);
    const res = await post(bearer(org.keys.publishable));
    expect(res.status).toBe(403);
    expect(await envelope(res)).toMatchObject({ error: { code: 'missing_scope' } });
  });

  it('refuses a browser from another origin, and takes its own', async () => {
    h.clock.advance(60_000);
    const foreign = await post({ ...bearer(org.keys.mcp), origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await envelope(foreign)).toMatchObject({ error: { code: 'forbidden' } });
    // A page whose name was rebound to this address still sends its own origin.
    expect((await post({ ...bearer(org.keys.mcp), origin: base })).status).toBe(403);
    expect((await post({ ...bearer(org.keys.mcp), origin: 'https://mallard.example' })).status).toBe(200);
  });

  it('keeps another org\'s site out of reach (404), and a sibling of a site-scoped key (403)', async () => {
    h.clock.advance(60_000);
    const foreign = await post(bearer(org.keys.mcp), PING, `?site_id=${other.site_id}`);
    expect(foreign.status).toBe(404);
    expect(await envelope(foreign)).toMatchObject({ error: { code: 'not_found' } });
    expect((await post(bearer(org.keys.mcp), PING, `?site_id=${org.site_id}`)).status).toBe(200);
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(await h.login(org.email, org.password)), payload: { name: 'Docs', url: 'https://docs.example' } });
    expect(created.statusCode, created.body).toBe(201);
    const sibling = await post(bearer(org.keys.mcp), PING, `?site_id=${created.json().data.id}`);
    expect(sibling.status).toBe(403);
    expect(await envelope(sibling)).toMatchObject({ error: { code: 'forbidden' } });
    const malformed = await post(bearer(org.keys.mcp), PING, '?site_id=nope');
    expect(await envelope(malformed)).toMatchObject({ error: { code: 'invalid_uuid' } });
  });

  it('answers GET and DELETE with 405 in the envelope', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/v1/mcp`, { method, headers: { ...bearer(org.keys.mcp), accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await envelope(res)).toMatchObject({ data: null, error: { code: 'method_not_allowed', status: 405 } });
    }
  });

  it('answers what is not an MCP message in the envelope', async () => {
    h.clock.advance(60_000);
    const notRpc = await post(bearer(org.keys.mcp), { hello: 'world' });
    expect(notRpc.status).toBe(400);
    expect(await envelope(notRpc)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'body' } } });
    const noAccept = await fetch(`${base}/v1/mcp`, { method: 'POST', headers: { ...bearer(org.keys.mcp), 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(PING) });
    expect(await envelope(noAccept)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'accept' } } });
    const notJson = await fetch(`${base}/v1/mcp`, { method: 'POST', headers: { ...bearer(org.keys.mcp), ...MCP_HEADERS }, body: '{' });
    expect(await envelope(notJson)).toMatchObject({ error: { code: 'invalid_json' } });
    const notification = await post(bearer(org.keys.mcp), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(202);
  });

  it('does not count against the org\'s query rate limit (MCP has its own budget, mcp-rate-budget.test.ts)', async () => {
    h.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post(bearer(other.keys.mcp))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
    const rest = await fetch(`${base}/v1/query/whoami`, { headers: bearer(other.keys.mcp) });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('ratelimit-remaining')).toBe('4');
  });
});
