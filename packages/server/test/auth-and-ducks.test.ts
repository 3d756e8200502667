// Login, logout and token lifetimes; duck facts on errors (off by default, per-request
// overrides, the org setting) and the unauthenticated, unlimited GET /v1/fun. Both dialects.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUCK_FACTS } from '../src/http/ducks.ts';
import { bearer, eachDialect, useHarness, auditRows } from './helpers/harness.ts';

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;

eachDialect('login and logout', ({ name, skip }) => {
  // Each test in its own minute: failed-authentication and login counters never carry over.
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  const login = (payload: Record<string, unknown>) => h.app.inject({ method: 'POST', url: '/v1/auth/login', payload });
  const whoami = (token: string) => h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(token) });

  it.skipIf(skip)('login returns {token, expires_at, user, org, role} and the token works', async () => {
    const org = await h.org('Login');
    const orgRow = await h.store.db.selectFrom('orgs').select('name').where('id', '=', org.org_id).executeTakeFirstOrThrow();
    const res = await login({ email: org.email.toUpperCase(), password: org.password });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        expires_at: new Date(h.clock.now() + 8 * HOUR).toISOString(),
        user: { id: org.user_id, email: org.email },
        org: { id: org.org_id, name: orgRow.name },
        role: 'owner',
      },
      error: null,
    });
    const who = await whoami(res.json().data.token);
    expect(who.statusCode).toBe(200);
    expect(who.json().data).toMatchObject({ org: { id: org.org_id }, site: null, key_type: 'jwt', user: { id: org.user_id, email: org.email }, role: 'owner' });
  });

  it.skipIf(skip)('a wrong password and an unknown email are the same 401 invalid_credentials', async () => {
    const org = await h.org('Login');
    const wrong = await login({ email: org.email, password: `${org.password}x` });
    const unknown = await login({ email: `nobody-${randomUUID()}@example.com`, password: org.password });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().data).toBeNull();
      expect(res.json().error).toMatchObject({ code: 'invalid_credentials', status: 401 });
    }
    expect(unknown.json()).toEqual(wrong.json());
    expect(unknown.body).toBe(wrong.body);
    expect(wrong.body).not.toMatch(/password is wrong|no such|not found|unknown/i);
  });

  it.skipIf(skip)('an org the user does not belong to is also invalid_credentials', async () => {
    const org = await h.org('Login');
    const other = await h.org('Other');
    const res = await login({ email: org.email, password: org.password, org_id: other.org_id });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_credentials');
    const own = await login({ email: org.email, password: org.password, org_id: org.org_id });
    expect(own.statusCode).toBe(200);
  });

  it.skipIf(skip)('expires_in is 900 to 86400 seconds: 899 and 86401 are 400 invalid_input', async () => {
    const org = await h.org('Ttl');
    for (const expires_in of [899, 86401, 0, -1, 1000.5, '3600']) {
      const res = await login({ email: org.email, password: org.password, expires_in });
      expect(res.statusCode, String(expires_in)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'expires_in' } });
    }
    const min = await login({ email: org.email, password: org.password, expires_in: 900 });
    expect(min.statusCode).toBe(200);
    expect(min.json().data.expires_at).toBe(new Date(h.clock.now() + 900 * SECOND).toISOString());
    const max = await login({ email: org.email, password: org.password, expires_in: 86400 });
    expect(max.statusCode).toBe(200);
    expect(max.json().data.expires_at).toBe(new Date(h.clock.now() + 86400 * SECOND).toISOString());
  });

  it.skipIf(skip)('a token stops working when it expires (401 invalid_jwt)', async () => {
    const org = await h.org('Ttl');
    const token = (await login({ email: org.email, password: org.password, expires_in: 900 })).json().data.token as string;
    h.clock.advance(899 * SECOND);
    expect((await whoami(token)).statusCode).toBe(200);
    h.clock.advance(2 * SECOND);
    const res = await whoami(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_jwt');
  });

  it.skipIf(skip)('a forged or tampered token is 401 invalid_jwt', async () => {
    const org = await h.org('Forge');
    const token = await h.login(org.email, org.password);
    const [head, body, sig] = token.split('.');
    const flipped = sig.startsWith('A') ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    for (const bad of [`${head}.${body}.${flipped}`, `${head}.${body}x.${sig}`]) {
      const res = await whoami(bad);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_jwt');
    }
  });

  it.skipIf(skip)('logout revokes that token at once (then invalid_jwt) and no other', async () => {
    const org = await h.org('Logout');
    const token = await h.login(org.email, org.password);
    const other = await h.login(org.email, org.password);
    const res = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { revoked: true }, error: null });

    const after = await whoami(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('invalid_jwt');
    const manage = await h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(token) });
    expect(manage.json().error.code).toBe('invalid_jwt');
    const again = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(token) });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.code).toBe('invalid_jwt');

    expect((await whoami(other)).statusCode).toBe(200);
  });

  it.skipIf(skip)('logout needs a user token', async () => {
    const org = await h.org('Logout');
    const none = await h.app.inject({ method: 'POST', url: '/v1/auth/logout' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('missing_auth');
    const key = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(org.keys.secret) });
    expect(key.statusCode).toBe(401);
    expect(key.json().error.code).toBe('jwt_required');
    expect((await whoami(org.keys.secret)).statusCode).toBe(200);
  });
});

eachDialect('duck facts on errors', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  const FACTS = new Set(DUCK_FACTS);

  /** A request that is sure to fail with 404 for the org of `key`. */
  const missingSite = (key: string, query = '', headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}${query}`, headers: { ...bearer(key), ...headers } });

  function withoutDuck(body: { data: unknown; error: Record<string, unknown> }) {
    const { duck: _duck, ...error } = body.error;
    return { ...body, error };
  }

  function expectDuck(body: { error: { duck?: unknown } }) {
    expect(typeof body.error.duck).toBe('string');
    expect((body.error.duck as string).length).toBeGreaterThan(0);
    expect(FACTS.has(body.error.duck as string)).toBe(true);
  }

  it.skipIf(skip)('are off by default', async () => {
    const org = await h.org('Ducks');
    const res = await missingSite(org.keys.secret);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).not.toHaveProperty('duck');
    expect(res.json()).toEqual({ data: null, error: { code: 'not_found', message: expect.any(String), status: 404 } });
    const settings = await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(org.keys.secret) });
    expect(settings.json().data).toMatchObject({ org_id: org.org_id, duck_facts: false });
  });

  it.skipIf(skip)('?ducks=on adds a duck and changes nothing else', async () => {
    const org = await h.org('Ducks');
    const plain = await missingSite(org.keys.secret);
    const ducked = await missingSite(org.keys.secret, '&ducks=on');
    expect(ducked.statusCode).toBe(plain.statusCode);
    expectDuck(ducked.json());
    expect(withoutDuck(ducked.json())).toEqual(plain.json());

    // An error with details keeps them untouched too.
    const bad = { method: 'PATCH' as const, headers: bearer(org.keys.secret), payload: { name: 'x', colour: 'green' } };
    const badPlain = await h.app.inject({ ...bad, url: `/v1/manage/site/${org.site_id}` });
    const badDucked = await h.app.inject({ ...bad, url: `/v1/manage/site/${org.site_id}?ducks=on` });
    expect(badPlain.json().error.details).toEqual({ field: 'colour', reason: expect.any(String) });
    expect(badDucked.statusCode).toBe(400);
    expectDuck(badDucked.json());
    expect(withoutDuck(badDucked.json())).toEqual(badPlain.json());
  });

  it.skipIf(skip)('the x-svc-ducks header turns them on too; the query parameter wins over it', async () => {
    const org = await h.org('Ducks');
    const plain = await missingSite(org.keys.secret);
    const header = await missingSite(org.keys.secret, '', { 'x-svc-ducks': 'on' });
    expect(header.statusCode).toBe(404);
    expectDuck(header.json());
    expect(withoutDuck(header.json())).toEqual(plain.json());
    const overruled = await missingSite(org.keys.secret, '&ducks=off', { 'x-svc-ducks': 'on' });
    expect(overruled.json().error).not.toHaveProperty('duck');
  });

  it.skipIf(skip)('errors raised before the caller is known take the override alone', async () => {
    const unknownRoute = await h.app.inject({ method: 'GET', url: '/v1/query/nothing-here?ducks=on' });
    expect(unknownRoute.statusCode).toBe(404);
    expectDuck(unknownRoute.json());
    const noAuth = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { 'x-svc-ducks': 'on' } });
    expect(noAuth.statusCode).toBe(401);
    expect(noAuth.json().error.code).toBe('missing_auth');
    expectDuck(noAuth.json());
    const quiet = await h.app.inject({ method: 'GET', url: '/v1/query/whoami' });
    expect(quiet.json().error).not.toHaveProperty('duck');
  });

  it.skipIf(skip)('successful responses never carry a duck', async () => {
    const org = await h.org('Ducks');
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami?ducks=on', headers: bearer(org.keys.secret) });
    expect(res.statusCode).toBe(200);
    expect(res.json().error).toBeNull();
    expect(res.body).not.toContain('"duck"');
  });

  it.skipIf(skip)('the org setting turns them on for that org only; ducks=off overrides it', async () => {
    const org = await h.org('Ducks');
    const bystander = await h.org('Quiet');
    const jwt = await h.login(org.email, org.password);
    const before = await auditRows(h.store, org.org_id);
    h.clock.advance(1000);

    const on = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(jwt), payload: { duck_facts: true } });
    expect(on.statusCode).toBe(200);
    // require_2fa is untouched by a PATCH that does not name it.
    expect(on.json()).toEqual({ data: { org_id: org.org_id, duck_facts: true, require_2fa: 'off', updated_at: new Date(h.clock.now()).toISOString() }, error: null });
    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'settings.updated', actor_type: 'user', actor_id: org.user_id, target_id: org.org_id });

    const read = await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(org.keys.secret) });
    expect(read.json().data.duck_facts).toBe(true);

    const plain = await missingSite(bystander.keys.secret);
    const ducked = await missingSite(org.keys.secret);
    expectDuck(ducked.json());
    expect(withoutDuck(ducked.json())).toEqual(plain.json());
    // The setting applies to every credential of the org, user tokens included.
    const byJwt = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${randomUUID()}`, headers: bearer(jwt), payload: { name: 'x' } });
    expect(byJwt.statusCode).toBe(404);
    expectDuck(byJwt.json());

    expect((await missingSite(org.keys.secret, '&ducks=off')).json().error).not.toHaveProperty('duck');
    expect((await missingSite(org.keys.secret, '', { 'x-svc-ducks': 'off' })).json().error).not.toHaveProperty('duck');
    expect(plain.json().error).not.toHaveProperty('duck');

    const off = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(jwt), payload: { duck_facts: false } });
    expect(off.json().data.duck_facts).toBe(false);
    expect((await missingSite(org.keys.secret)).json().error).not.toHaveProperty('duck');
  });

  it.skipIf(skip)('the setting is changed only by admins, with a boolean', async () => {
    const org = await h.org('Ducks');
    const jwt = await h.login(org.email, org.password);
    for (const payload of [{ duck_facts: 'true' }, {}, { duck_facts: true, geese: true }]) {
      const res = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(jwt), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
    const invite = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(jwt), payload: { email: `v-${randomUUID()}@example.com`, role: 'viewer' } });
    const { email, invitation } = invite.json().data;
    await h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation.token, password: 'viewer-password' } });
    const viewer = await h.login(email, 'viewer-password');
    const refused = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(viewer), payload: { duck_facts: true } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_role');
    expect((await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(viewer) })).json().data.duck_facts).toBe(false);
  });
});

eachDialect('GET /v1/fun', ({ name, skip }) => {
  // Tiny limits everywhere else: /fun must not be counted by any of them.
  const h = useHarness(name, { config: { rateLimits: { query: 1, manage: 1, ingest: 1, guide: 1, mcp: 1 } } });

  it.skipIf(skip)('needs no auth, always has data.duck, sometimes a fact, and is never rate limited', async () => {
    let withFact = 0;
    const calls = 150;
    for (let i = 0; i < calls; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/fun' });
      expect(res.statusCode).toBe(200);
      expect(res.headers).not.toHaveProperty('ratelimit-limit');
      expect(res.headers).not.toHaveProperty('retry-after');
      const body = res.json();
      expect(body.error).toBeNull();
      expect(typeof body.data.duck).toBe('string');
      expect(body.data.duck.length).toBeGreaterThan(0);
      expect(Object.keys(body.data).every((k) => k === 'duck' || k === 'fact')).toBe(true);
      if ('fact' in body.data) {
        withFact += 1;
        expect(DUCK_FACTS).toContain(body.data.fact);
      }
    }
    expect(withFact).toBeGreaterThan(0);
    expect(withFact).toBeLessThan(calls);
  });

  it.skipIf(skip)('ignores credentials, good or bad', async () => {
    const org = await h.org('Fun');
    for (const headers of [bearer(org.keys.secret), bearer('svc_sec_nonsense'), { authorization: 'Basic abc' }]) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/fun', headers });
      expect(res.statusCode).toBe(200);
      expect(typeof res.json().data.duck).toBe('string');
    }
  });
});

describe('duck facts list', () => {
  it('has at least 30 distinct, non-empty facts', () => {
    expect(DUCK_FACTS.every((fact) => typeof fact === 'string' && fact.trim().length > 0)).toBe(true);
    expect(new Set(DUCK_FACTS.map((fact) => fact.trim().toLowerCase())).size).toBeGreaterThanOrEqual(30);
  });
});
