// OAuth 2.1 for the MCP endpoint, end to end on both databases: a real Mallard on 127.0.0.1 is
// its own authorization server; the reference SDK's OAuth client discovers it from the 401,
// registers, sends the person to consent (performed over HTTP as a signed-in person would in
// the dashboard) and calls tools with the token. Then: a token for one site refused on another,
// refresh rotation (and reuse ending the grant), expiry by the app's clock, revocation from
// settings, PKCE required, an unknown redirect URI refused, a denied consent, and the token
// refused on the REST surfaces.
import { oauthIdHashes } from '../src/auth/oauth-records.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { bearer, eachDialect, type Harness } from './helpers/harness.ts';
import { maintain } from '../src/jobs/maintenance.ts';
import { purgeExpiredOAuthRecords } from '../src/store/oauth-records.ts';
import { OAUTH_REGISTRATIONS_PER_HOUR } from '../src/domain/rate-limits.ts';
import { listeningHarness, pkce, REDIRECT_URI, TestOAuthClient, visitAuthorization, type Choice } from './helpers/oauth-kit.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
const MCP_BUDGET = 5;

eachDialect('OAuth for /v1/mcp', ({ name: dialect }) => {
  let h: Harness;
  let base: string;
  let org: Awaited<ReturnType<Harness['org']>>;
  let other: Awaited<ReturnType<Harness['org']>>;
  let sibling: string;

  beforeAll(async () => {
    // A small MCP budget, so one connection can spend it (the other limits stay out of the way).
    ({ h, base } = await listeningHarness(dialect, { config: { rateLimits: { query: 1_000_000, manage: 1_000_000, ingest: 1_000_000, guide: 200, mcp: MCP_BUDGET } } }));
    org = await h.org('OAuth');
    other = await h.org('Elsewhere');
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(org.jwt), payload: { name: 'Docs', url: 'https://docs.example' } });
    expect(created.statusCode, created.body).toBe(201);
    sibling = created.json().data.id;
  });
  afterAll(async () => h?.close());
  // Sign-ins are limited per minute (10 per email and address): each test in a minute of its own.
  beforeEach(() => h.clock.advance(60_000));

  const person = () => ({ email: org.email, password: org.password });
  const mcp = (token: string, body: unknown = PING, query = '') =>
    fetch(`${base}/v1/mcp${query}`, { method: 'POST', headers: { ...MCP_HEADERS, ...bearer(token) }, body: JSON.stringify(body) });
  const form = (url: string, fields: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

  /** Connects the SDK's client through the whole flow; answers the connected client and its provider. */
  async function connectWithOAuth(choice: Choice, siteQuery?: string) {
    const provider = new TestOAuthClient(person(), choice);
    const url = new URL(`${base}/v1/mcp`);
    if (siteQuery) url.searchParams.set('site_id', siteQuery);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.code, `sent back to ${provider.lastRedirect?.href}`).toBeTruthy();
    await first.finishAuth(provider.code!);
    const connected = new Client({ name: 'oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return { client: connected, provider };
  }

  describe('discovery', () => {
    it('answers 401 with the protected-resource metadata in WWW-Authenticate, in the envelope', async () => {
      const res = await fetch(`${base}/v1/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(PING) });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/v1/mcp"`);
      expect(await res.json()).toMatchObject({ data: null, error: { code: 'missing_auth', status: 401 } });
    });

    it('serves the protected-resource metadata at both addresses, and the authorization server\'s metadata', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1/mcp']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          resource: `${base}/v1/mcp`, authorization_servers: [base], scopes_supported: ['mcp'], bearer_methods_supported: ['header'],
          resource_name: 'Mallard', resource_documentation: `${base}/docs`,
        });
      }
      const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
      expect(meta).toMatchObject({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
      });
      expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    });
  });

  describe('the whole flow with the SDK\'s OAuth client', () => {
    it('connects by signing in and consenting to one site, read only; tools answer as that person on that site', async () => {
      const { client, provider } = await connectWithOAuth({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.isError ?? false).toBe(false);
      expect(who.structuredContent).toMatchObject({ key_type: 'oauth', org: { id: org.org_id }, site: { id: org.site_id }, user: { id: org.user_id }, role: 'owner', scopes: ['mcp:read'] });
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('get_site_context');
      expect(tools).not.toContain('update_issue');
      const write = await client.callTool({ name: 'update_issue', arguments: { issue_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f', status: 'acknowledged' } });
      expect(write.isError).toBe(true);
      expect(JSON.stringify(write.content)).toContain('read only');
      // The token: opaque, an hour, with a refresh token; for the MCP resource's one scope.
      expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), expires_in: 3600, scope: 'mcp' });
      expect(provider.saved!.refresh_token).toBeTruthy();
      await client.close();

      const token = provider.saved!.access_token;
      // Another site of the same org: refused as a site-scoped key is (403); another org's: 404.
      expect((await mcp(token, PING, `?site_id=${sibling}`)).status).toBe(403);
      const foreign = await mcp(token, PING, `?site_id=${other.site_id}`);
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toMatchObject({ error: { code: 'not_found' } });
      const asked = await (await mcp(token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_scores', arguments: { site_id: sibling } } })).json() as { result: { isError?: boolean; content: unknown } };
      expect(asked.result.isError).toBe(true);
      expect(JSON.stringify(asked.result.content)).toContain('forbidden');
      // Only the MCP endpoint takes it: the REST surfaces answer as for any unknown credential.
      for (const url of ['/v1/query/whoami', '/v1/query/scores', '/v1/auth/oauth/connections']) {
        const rest = await fetch(`${base}${url}`, { headers: bearer(token) });
        expect(rest.status, url).toBe(401);
        expect(await rest.json()).toMatchObject({ error: { code: 'invalid_key' } });
      }
    });

    it('an org-wide read-and-write connection reaches every site of the org and the write tools', async () => {
      const { client, provider } = await connectWithOAuth({ org_id: org.org_id, site_id: null, access: 'write' });
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.structuredContent).toMatchObject({ key_type: 'oauth', site: null, scopes: ['mcp:read', 'manage:write'] });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('update_issue');
      await client.close();
      expect((await mcp(provider.saved!.access_token, PING, `?site_id=${sibling}`)).status).toBe(200);
    });
  });

  /** A client registered as the SDK registers one (public, PKCE), for the flows driven by hand. */
  async function register(redirectUris = [REDIRECT_URI]) {
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Hand-driven client', redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json() as { client_id: string }).client_id;
  }

  function authorizeUrl(clientId: string, params: Record<string, string | undefined>) {
    const url = new URL(`${base}/oauth/authorize`);
    const all: Record<string, string | undefined> = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: 'mcp', state: 'st-1', resource: `${base}/v1/mcp`, ...params };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  }

  /** Code -> tokens by hand, for the refresh and revocation cases. */
  async function tokensFor(choice: Choice) {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const { redirectedTo, details } = await visitAuthorization(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), person(), choice);
    expect(redirectedTo?.searchParams.get('state')).toBe('st-1');
    const code = redirectedTo!.searchParams.get('code')!;
    const res = await form(`${base}/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource: `${base}/v1/mcp` });
    expect(res.status, await res.clone().text()).toBe(200);
    return { clientId, details, tokens: await res.json() as { access_token: string; refresh_token: string; expires_in: number; scope: string } };
  }
  const refresh = (clientId: string, refreshToken: string) =>
    form(`${base}/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  describe('rate budget', () => {
    it('each connection has its own MCP budget, as a key does', async () => {
      const call = (token: string) => mcp(token, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_sites', arguments: {} } })
        .then((res) => res.json() as Promise<{ result: { isError?: boolean; _meta?: { code?: string } } }>);
      const first = await tokensFor({ org_id: org.org_id, site_id: null, access: 'read' });
      const second = await tokensFor({ org_id: org.org_id, site_id: null, access: 'read' });
      for (let i = 0; i < MCP_BUDGET; i++) expect((await call(first.tokens.access_token)).result.isError ?? false).toBe(false);
      const refused = await call(first.tokens.access_token);
      expect(refused.result.isError).toBe(true);
      expect(JSON.stringify(refused)).toContain('rate_limited');
      // The handshake and pings stay free; another connection of the same person is untouched.
      expect((await mcp(first.tokens.access_token)).status).toBe(200);
      expect((await call(second.tokens.access_token)).result.isError ?? false).toBe(false);
    });
  });

  describe('consent', () => {
    it('shows the client\'s name and redirect URI and the person\'s orgs with their sites; a viewer cannot choose write', async () => {
      const { details } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      expect(details!.client).toMatchObject({ name: 'Hand-driven client', redirect_uri: REDIRECT_URI });
      const mine = details!.orgs.find((o) => o.id === org.org_id)!;
      expect(mine).toMatchObject({ role: 'owner', may_write: true });
      expect(mine.sites.map((x) => x.id).sort()).toEqual([org.site_id, sibling].sort());
      expect(details!.orgs.map((o) => o.id)).not.toContain(other.org_id);

      const viewer = await h.user(org, 'viewer');
      const clientId = await register();
      const { challenge } = pkce();
      const refused = await visitAuthorization(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), { email: viewer.email, password: viewer.password }, { org_id: org.org_id, site_id: null, access: 'write' });
      expect(refused.redirectedTo).toBeNull();
      expect(refused.details!.orgs[0]).toMatchObject({ role: 'viewer', may_write: false });
      expect((refused as { refused?: { code: string } }).refused).toMatchObject({ code: 'insufficient_role' });
      // Another org's site, or an org the person is not in: not found.
      const foreign = await visitAuthorization(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), person(), { org_id: org.org_id, site_id: other.site_id, access: 'read' });
      expect((foreign as { refused?: { code: string } }).refused).toMatchObject({ code: 'not_found' });
    });

    it('a denied consent sends the client back with error=access_denied and no code', async () => {
      const clientId = await register();
      const { challenge } = pkce();
      const { redirectedTo } = await visitAuthorization(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), person(), 'deny');
      expect(redirectedTo!.searchParams.get('error')).toBe('access_denied');
      expect(redirectedTo!.searchParams.get('code')).toBeNull();
      expect(redirectedTo!.searchParams.get('state')).toBe('st-1');
    });

    it('the consent calls need the browser that started the sign-in: without its cookie, 400', async () => {
      const clientId = await register();
      const { challenge } = pkce();
      const started = await fetch(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
      const uid = started.headers.get('location')!.split('/').pop()!;
      const login = await h.app.inject({ method: 'POST', url: '/v1/auth/session', payload: person() });
      const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const res = await fetch(`${base}/v1/auth/oauth/interaction/${uid}/details`, { headers: { cookie } });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'invalid_input', details: { field: 'uid' } } });
    });
  });

  describe('the protocol\'s refusals', () => {
    it('requires PKCE with S256: none, or plain, is refused back to the client; a wrong verifier gets no token', async () => {
      const clientId = await register();
      for (const params of [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }]) {
        const res = await fetch(authorizeUrl(clientId, params), { redirect: 'manual' });
        expect(res.status).toBe(303);
        const back = new URL(res.headers.get('location')!);
        expect(back.href.startsWith(REDIRECT_URI), back.href).toBe(true);
        expect(back.searchParams.get('error')).toBe('invalid_request');
      }
      const { challenge } = pkce();
      const { redirectedTo } = await visitAuthorization(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), person(), { org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const wrong = await form(`${base}/oauth/token`, { grant_type: 'authorization_code', code: redirectedTo!.searchParams.get('code')!, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: pkce().verifier });
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('limits open registration per client address an hour (429 in the envelope with Retry-After)', async () => {
      // Its own hour, so the registrations of the other tests do not count.
      const start = h.clock.now();
      try {
        h.clock.advance(3600 * 1000);
        const body = JSON.stringify({ client_name: 'Flood', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
        const post = () => fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        for (let i = 0; i < OAUTH_REGISTRATIONS_PER_HOUR; i++) expect((await post()).status).toBe(201);
        const refused = await post();
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await refused.json()).toMatchObject({ data: null, error: { code: 'rate_limited' } });
      } finally {
        h.clock.set(start);
      }
    });

    it('refuses a redirect URI the client did not register (exact match), with an error page and no redirect', async () => {
      const clientId = await register();
      const { challenge } = pkce();
      for (const redirect of ['http://127.0.0.1:9/elsewhere', `${REDIRECT_URI}/more`, `${REDIRECT_URI}?x=1`]) {
        const res = await fetch(authorizeUrl(clientId, { redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
        expect(res.status, redirect).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('redirect_uri');
      }
    });
  });

  describe('token lifetime', () => {
    it('rotates the refresh token at each use; reusing a rotated one ends the whole grant', async () => {
      const { clientId, tokens } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      expect(tokens).toMatchObject({ expires_in: 3600, scope: 'mcp' });
      const first = await refresh(clientId, tokens.refresh_token);
      expect(first.status).toBe(200);
      const rotated = await first.json() as { access_token: string; refresh_token: string };
      expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
      expect(rotated.access_token).not.toBe(tokens.access_token);
      expect((await mcp(rotated.access_token)).status).toBe(200);
      // The old refresh token again (a thief's copy): refused, and every token of the grant ends.
      const reused = await refresh(clientId, tokens.refresh_token);
      expect(reused.status).toBe(400);
      expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await mcp(rotated.access_token)).status).toBe(401);
      expect((await refresh(clientId, rotated.refresh_token)).status).toBe(400);
    });

    it('an access token expires after its lifetime by the app\'s clock (401 invalid_token); a refresh brings a new one', async () => {
      const { clientId, tokens } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      // The token was issued by the wall clock, an hour ahead; the app's clock is moved around its end.
      const issuedBy = Date.now();
      const start = h.clock.now();
      try {
        h.clock.set(issuedBy + 3600 * 1000 - 60_000);
        expect((await mcp(tokens.access_token)).status).toBe(200);
        h.clock.set(issuedBy + 3600 * 1000 + 60_000);
        const expired = await mcp(tokens.access_token);
        expect(expired.status).toBe(401);
        expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(await expired.json()).toMatchObject({ error: { code: 'invalid_token' } });
      } finally {
        h.clock.set(start);
      }
      const renewed = await (await refresh(clientId, tokens.refresh_token)).json() as { access_token: string };
      expect((await mcp(renewed.access_token)).status).toBe(200);
    });
  });

  describe('settings', () => {
    it('no longer lists a connection past its grant\'s year (its records expire with it)', async () => {
      const { clientId } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const listed = async () => ((await h.app.inject({ method: 'GET', url: '/v1/auth/oauth/connections', headers: bearer(org.jwt) })).json().data.connections as { client_id: string }[])
        .some((c) => c.client_id === clientId);
      expect(await listed()).toBe(true);
      await h.store.db.updateTable('oauth_grants').set({ created_at: h.clock.now() - 366 * 86_400_000 }).where('client_id', '=', clientId).execute();
      expect(await listed()).toBe(false);
    });

    it('lists the person\'s connections (and the org\'s for admins) and revokes one: its access and refresh tokens stop at once', async () => {
      const { clientId, tokens } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      expect((await mcp(tokens.access_token)).status).toBe(200);
      const mine = await h.app.inject({ method: 'GET', url: '/v1/auth/oauth/connections', headers: bearer(org.jwt) });
      expect(mine.statusCode).toBe(200);
      const row = (mine.json().data.connections as { id: string; client_id: string }[]).find((c) => c.client_id === clientId);
      expect(row).toMatchObject({ client_name: 'Hand-driven client', redirect_uri: REDIRECT_URI, site_id: org.site_id, access: 'read', user: { id: org.user_id, email: org.email }, last_used_at: expect.any(String) });
      const admin = await h.user(org, 'admin');
      const everyone = await h.app.inject({ method: 'GET', url: '/v1/manage/oauth-connections', headers: bearer(admin.jwt) });
      expect((everyone.json().data.connections as { id: string }[]).map((c) => c.id)).toContain(row!.id);
      // The admin's own list is theirs only; another org sees nothing of it.
      expect((await h.app.inject({ method: 'GET', url: '/v1/auth/oauth/connections', headers: bearer(admin.jwt) })).json().data.connections).toEqual([]);
      expect((await h.app.inject({ method: 'DELETE', url: `/v1/manage/oauth-connections/${row!.id}`, headers: bearer(other.jwt) })).statusCode).toBe(404);

      const revoked = await h.app.inject({ method: 'DELETE', url: `/v1/auth/oauth/connections/${row!.id}`, headers: bearer(org.jwt) });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json().data).toEqual({ id: row!.id, deleted: true });
      const after = await mcp(tokens.access_token);
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ error: { code: 'invalid_token' } });
      const refreshed = await refresh(clientId, tokens.refresh_token);
      expect(refreshed.status).toBe(400);
      expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await h.app.inject({ method: 'GET', url: '/v1/auth/oauth/connections', headers: bearer(org.jwt) })).json().data.connections.map((c: { id: string }) => c.id)).not.toContain(row!.id);
      const audit = await h.store.db.selectFrom('audit_log').select('action').where('org_id', '=', org.org_id).where('target_id', '=', row!.id).execute();
      expect(audit.map((a) => a.action).sort()).toEqual(['oauth.approved', 'oauth.revoked']);
    });

    it('opens /v1/mcp only with a token for the MCP resource and its scope', async () => {
      const { tokens } = await tokensFor({ org_id: org.org_id, site_id: null, access: 'read' });
      const { secrets } = h.app.services;
      const row = await h.store.db.selectFrom('oauth_records').select(['id_hash', 'payload']).where('model', '=', 'AccessToken')
        .where('id_hash', 'in', oauthIdHashes(secrets, 'AccessToken', tokens.access_token)).executeTakeFirstOrThrow();
      const payload = JSON.parse(secrets.decrypt(row.payload)) as Record<string, unknown>;
      const store = (p: Record<string, unknown>) => h.store.db.updateTable('oauth_records').set({ payload: secrets.encrypt(JSON.stringify(p)) }).where('id_hash', '=', row.id_hash).execute();
      // As if the provider had issued it for another resource, or without the mcp scope.
      for (const change of [{ aud: `${base}/v1/userinfo` }, { aud: undefined }, { scope: 'openid' }]) {
        await store({ ...payload, ...change });
        const res = await mcp(tokens.access_token);
        expect(res.status, JSON.stringify(change)).toBe(401);
      }
      await store(payload);
      expect((await mcp(tokens.access_token)).status).toBe(200);
    });

    it('stores no token, code or client secret in the clear', async () => {
      const { tokens } = await tokensFor({ org_id: org.org_id, site_id: null, access: 'read' });
      const rows = await h.store.db.selectFrom('oauth_records').selectAll().execute();
      const dump = JSON.stringify(rows);
      for (const secret of [tokens.access_token, tokens.refresh_token]) expect(dump.includes(secret)).toBe(false);
      expect(rows.some((r) => r.model === 'AccessToken')).toBe(true);
      // A confidential client's secret is sealed with the rest of its record.
      const confidential = await fetch(`${base}/oauth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Confidential', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }),
      });
      const { client_secret: clientSecret } = await confidential.json() as { client_secret: string };
      expect(clientSecret).toBeTruthy();
      expect(JSON.stringify(await h.store.db.selectFrom('oauth_records').selectAll().execute()).includes(clientSecret)).toBe(false);
    });

    it('the hourly maintenance drops the records past their expiry, and only those', async () => {
      const { clientId, tokens } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const count = async () => Number((await h.store.db.selectFrom('oauth_records').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const expiredBefore = await h.store.db.selectFrom('oauth_records').select('id_hash').where('expires_at', '<=', h.clock.now() + 2 * 3600 * 1000).execute();
      const before = await count();
      const start = h.clock.now();
      const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
      try {
        // Two hours on: the access tokens, codes, interactions and sessions have expired; refresh tokens, grants and clients have not.
        h.clock.advance(2 * 3600 * 1000);
        await maintain(h.store, h.clock, { rawDays: 90, auditDays: 365 }, log);
      } finally {
        h.clock.set(start);
      }
      expect(expiredBefore.length).toBeGreaterThan(0);
      expect(await count()).toBe(before - expiredBefore.length);
      // What is left still works: the refresh token buys a new access token.
      expect((await refresh(clientId, tokens.refresh_token)).status).toBe(200);
    });

    it('drops expired records in bounded batches until none is left', async () => {
      await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const later = h.clock.now() + 2 * 3600 * 1000;
      const expired = async () => Number((await h.store.db.selectFrom('oauth_records').select((eb) => eb.fn.countAll().as('n')).where('expires_at', '<=', later).executeTakeFirstOrThrow()).n);
      const waiting = await expired();
      expect(waiting).toBeGreaterThan(2);
      expect(await purgeExpiredOAuthRecords(h.store.db, later, 2)).toBe(waiting);
      expect(await expired()).toBe(0);
    });

    it('a client revoking its refresh token (RFC 7009) ends the grant and the connection', async () => {
      const { clientId, tokens } = await tokensFor({ org_id: org.org_id, site_id: org.site_id, access: 'read' });
      const res = await form(`${base}/oauth/revoke`, { token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: clientId });
      expect(res.status).toBe(200);
      expect((await mcp(tokens.access_token)).status).toBe(401);
      const mine = (await h.app.inject({ method: 'GET', url: '/v1/auth/oauth/connections', headers: bearer(org.jwt) })).json().data.connections as { client_id: string }[];
      expect(mine.map((c) => c.client_id)).not.toContain(clientId);
    });
  });
});
