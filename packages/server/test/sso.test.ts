// Single sign-on with OIDC against a real provider (oidc-provider on 127.0.0.1): an admin
// connects it (the secret never echoed, a bad issuer refused), a member signs in through it and
// gets the dashboard's session cookie, and everything that must fail does: a replayed, foreign,
// expired or missing state, a wrong nonce, an unverified address, someone who is not a member
// when JIT is off or the address is at no domain of the org. JIT adds a member at the default
// role; a required connection refuses members' passwords but not the owner's; the audit rows
// say all of it without a secret or token; an issuer at a private address is never fetched
// when private targets are off. Both dialects.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../src/auth/session-tokens.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { auditRows, bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { guardViolations, installLoopbackGuard, tableResolver } from './helpers/delivery-kit.ts';
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, loginAtProvider, startProvider, type TestProvider } from './helpers/oidc-provider.ts';

installLoopbackGuard();

const MINUTE = 60_000;
interface Cookie { name: string; value: string; path?: string; sameSite?: string; httpOnly?: boolean; maxAge?: number }
interface Reply { statusCode: number; headers: Record<string, unknown>; cookies: Cookie[]; json(): { data: any; error: { code: string; details?: any } | null }; body: string }

eachDialect('single sign-on with OIDC', ({ name }) => {
  let idp: TestProvider;
  let callbackUrl = '';
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true, captureLogs: true });
  beforeAll(async () => {
    callbackUrl = `${h.config.publicUrl}/v1/auth/sso/callback`;
    idp = await startProvider([callbackUrl]);
  });
  afterAll(async () => { await idp?.close(); });

  let n = 0;
  const domain = () => `corp${++n}-${randomBytes(3).toString('hex')}.example`;
  const ip = () => `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

  async function connect(org: Org, body: Record<string, unknown>) {
    return h.app.inject({ method: 'PUT', url: '/v1/manage/sso', headers: bearer(org.jwt), payload: body }) as unknown as Promise<Reply>;
  }
  async function connected(org: Org, extra: Record<string, unknown> = {}) {
    const d = domain();
    const res = await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, client_secret: IDP_CLIENT_SECRET, email_domains: [d], ...extra });
    expect(res.statusCode, res.body).toBe(200);
    return d;
  }

  /** GET /v1/auth/sso/start: the 302 and the state cookie. */
  async function start(email: string, remoteAddress = ip()) {
    const res = await h.app.inject({ method: 'GET', url: `/v1/auth/sso/start?${new URLSearchParams({ email })}`, remoteAddress }) as unknown as Reply;
    return { res, location: String(res.headers.location ?? ''), state: res.cookies.find((c) => c.name === 'mallard_sso_state') };
  }
  const callback = (url: string, stateCookie: string | undefined, remoteAddress = ip()) => h.app.inject({
    method: 'GET', url: url.slice(h.config.publicUrl.length), remoteAddress, headers: stateCookie ? { cookie: `mallard_sso_state=${stateCookie}` } : {},
  }) as unknown as Promise<Reply>;

  /** The whole sign-in: start, the provider's login form as `account`, the callback. */
  async function signIn(email: string, account = email) {
    const started = await start(email);
    expect(started.res.statusCode, started.res.body).toBe(302);
    expect(started.location.startsWith(`${idp.issuer}/auth?`), started.location).toBe(true);
    const back = await loginAtProvider(started.location, account, callbackUrl);
    return { back, state: started.state!.value, res: await callback(back, started.state!.value) };
  }
  const ssoError = (res: Reply) => {
    expect(res.statusCode).toBe(302);
    const location = String(res.headers.location);
    expect(location.startsWith('/app/#/sign-in?sso_error='), location).toBe(true);
    return new URLSearchParams(location.split('?')[1]).get('sso_error');
  };
  const sessionOf = (res: Reply) => res.cookies.find((c) => c.name === SESSION_COOKIE);

  describe('connecting a provider', () => {
    it('stores the connection after reading the issuer\'s discovery document, and never shows or audits the secret', async () => {
      const org = await h.org('Connect');
      const missing = await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: ['a.example'] });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'client_secret' } });

      const d = domain();
      const res = await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, client_secret: IDP_CLIENT_SECRET, email_domains: [d.toUpperCase()], jit: true, default_role: 'member' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({
        org_id: org.org_id, issuer: idp.issuer, client_id: IDP_CLIENT_ID, client_secret_set: true, email_domains: [d], jit: true,
        default_role: 'member', required: false, enabled: true, callback_url: callbackUrl,
      });
      expect(res.body).not.toContain(IDP_CLIENT_SECRET);
      expect(idp.requests).toContain('/.well-known/openid-configuration');
      const read = await h.app.inject({ method: 'GET', url: '/v1/manage/sso', headers: bearer(org.jwt) });
      expect(read.json().data).toEqual(res.json().data);
      expect(read.body).not.toContain(IDP_CLIENT_SECRET);
      // Sealed at rest.
      const row = await h.store.db.selectFrom('sso_connections').selectAll().where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
      expect(row.client_secret).not.toContain(IDP_CLIENT_SECRET);
      expect(h.secrets.decrypt(row.client_secret)).toBe(IDP_CLIENT_SECRET);

      // An update without the secret keeps it.
      const update = await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: [d], required: true });
      expect(update.statusCode, update.body).toBe(200);
      expect(update.json().data).toMatchObject({ required: true, jit: false, default_role: 'viewer' });
      const kept = await h.store.db.selectFrom('sso_connections').select('client_secret').where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
      expect(h.secrets.decrypt(kept.client_secret)).toBe(IDP_CLIENT_SECRET);

      const audit = await auditRows(h.store, org.org_id, 'sso.connection_updated');
      expect(audit).toHaveLength(2);
      expect(JSON.parse(audit[0].details!)).toMatchObject({ created: true, issuer: idp.issuer, secret_changed: true, email_domains: [d] });
      expect(JSON.parse(audit[1].details!)).toMatchObject({ created: false, secret_changed: false, required: true });
      for (const a of audit) expect(a.details).not.toContain(IDP_CLIENT_SECRET);

      // A stored secret this server cannot open (sealed under another MALLARD_SECRET) must be given again, not a 500.
      await h.store.db.updateTable('sso_connections').set({ client_secret: new Secrets('another-secret-another-secret-0123456789').encrypt('x') }).where('org_id', '=', org.org_id).execute();
      const unreadable = await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: [d] });
      expect(unreadable.statusCode).toBe(400);
      expect(unreadable.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'client_secret' } });

      const deleted = await h.app.inject({ method: 'DELETE', url: '/v1/manage/sso', headers: bearer(org.jwt) });
      expect(deleted.json().data).toEqual({ id: org.org_id, deleted: true });
      expect((await h.app.inject({ method: 'GET', url: '/v1/manage/sso', headers: bearer(org.jwt) })).json().error.code).toBe('sso_not_configured');
      expect((await h.app.inject({ method: 'DELETE', url: '/v1/manage/sso', headers: bearer(org.jwt) })).statusCode).toBe(404);
      expect(await auditRows(h.store, org.org_id, 'sso.connection_deleted')).toHaveLength(1);
    });

    it('refuses an issuer whose discovery document cannot be read, and stores nothing', async () => {
      const org = await h.org('Bad issuer');
      for (const issuer of ['http://127.0.0.1:1', `${idp.issuer}/elsewhere`, 'not a url']) {
        const res = await connect(org, { issuer, client_id: 'x', client_secret: 'y', email_domains: [domain()] });
        expect(res.statusCode, issuer).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'sso_discovery_failed', details: { field: 'issuer' } });
        expect(res.body).not.toContain('"y"');
      }
      expect(await h.store.db.selectFrom('sso_connections').selectAll().where('org_id', '=', org.org_id).execute()).toEqual([]);
      expect(await auditRows(h.store, org.org_id, 'sso.connection_updated')).toEqual([]);
    });

    it('is for admins with a user token, and a domain belongs to one org', async () => {
      const org = await h.org('Roles');
      const member = await h.user(org, 'member');
      const denied = await h.app.inject({ method: 'PUT', url: '/v1/manage/sso', headers: bearer(member.jwt), payload: { issuer: idp.issuer, client_id: 'x', client_secret: 'y', email_domains: [] } });
      expect(denied.json().error.code).toBe('insufficient_role');
      const key = await h.key(org, { scopes: ['manage:write'] });
      expect((await h.app.inject({ method: 'GET', url: '/v1/manage/sso', headers: bearer(key.key) })).json().error.code).toBe('jwt_required');

      const d = await connected(org);
      const other = await h.org('Other');
      const clash = await connect(other, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, client_secret: IDP_CLIENT_SECRET, email_domains: [d] });
      expect(clash.statusCode).toBe(409);
      expect(clash.json().error).toMatchObject({ code: 'conflict', details: { domains: [d] } });
    });
  });

  describe('signing in', () => {
    it('signs a member in through the provider: a session cookie that works, audited with the address and issuer', async () => {
      const org = await h.org('Sign in');
      const d = await connected(org);
      const member = await h.user(org, 'member');
      const email = `ana@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();

      const started = await start(email.toUpperCase());
      expect(started.state).toMatchObject({ path: '/v1/auth/sso', httpOnly: true, sameSite: 'Lax' });
      const auth = new URL(started.location);
      expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
      expect(auth.searchParams.get('state')).toBe(started.state!.value);
      expect(auth.searchParams.get('nonce')).toBeTruthy();
      expect(auth.searchParams.get('redirect_uri')).toBe(callbackUrl);
      // Only an HMAC of the state and the sealed verifier are stored.
      const row = await h.store.db.selectFrom('sso_logins').selectAll().where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(started.state!.value);

      const back = await loginAtProvider(started.location, email, callbackUrl);
      const res = await callback(back, started.state!.value);
      expect(res.statusCode, res.body).toBe(302);
      expect(res.headers.location).toBe('/app/');
      const session = sessionOf(res);
      expect(session, 'session cookie').toBeDefined();
      expect(res.cookies.find((c) => c.name === 'mallard_sso_state')?.value).toBe('');

      const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { cookie: `${SESSION_COOKIE}=${session!.value}` } });
      expect(who.statusCode, who.body).toBe(200);
      expect(who.json().data).toMatchObject({ org: { id: org.org_id }, user: { id: member.userId, email } });
      const stored = await h.store.db.selectFrom('web_sessions').selectAll().where('user_id', '=', member.userId).execute();
      expect(stored.map((s) => [s.org_id, s.method])).toEqual([[org.org_id, 'sso']]);

      const [audit] = await auditRows(h.store, org.org_id, 'auth.sso_login');
      expect(audit).toMatchObject({ actor_type: 'user', actor_id: member.userId, target_id: member.userId });
      expect(JSON.parse(audit.details!)).toEqual({ email, issuer: idp.issuer, jit: false });

      // The same state again, even from the same browser: refused.
      expect(ssoError(await callback(back, started.state!.value))).toBe('sso_state_invalid');
    });

    it('refuses a callback without the browser\'s state cookie, with another state, or after ten minutes', async () => {
      const org = await h.org('State');
      const d = await connected(org);
      const member = await h.user(org, 'viewer');
      const email = `bo@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();

      const a = await start(email);
      const backA = await loginAtProvider(a.location, email, callbackUrl);
      expect(ssoError(await callback(backA, undefined))).toBe('sso_state_invalid');
      const b = await start(email);
      // Browser B's cookie with browser A's callback: a link sent to someone else signs nobody in.
      expect(ssoError(await callback(backA, b.state!.value))).toBe('sso_state_invalid');
      // A state cookie matching a made-up state.
      const forged = backA.replace(/state=[^&]+/, 'state=made-up');
      expect(ssoError(await callback(forged, 'made-up'))).toBe('sso_state_invalid');

      const backB = await loginAtProvider(b.location, email, callbackUrl);
      h.clock.advance(10 * MINUTE + 1);
      expect(ssoError(await callback(backB, b.state!.value))).toBe('sso_state_invalid');
      expect(await h.store.db.selectFrom('web_sessions').selectAll().where('user_id', '=', member.userId).execute()).toEqual([]);
    });

    it('refuses an ID token whose nonce is not the sign-in\'s, and an address the provider has not verified', async () => {
      const org = await h.org('Nonce');
      const d = await connected(org);
      const member = await h.user(org, 'member');
      const email = `cy@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();

      const started = await start(email);
      await h.store.db.updateTable('sso_logins').set({ nonce: 'another-nonce' }).where('org_id', '=', org.org_id).where('used_at', 'is', null).execute();
      const back = await loginAtProvider(started.location, email, callbackUrl);
      const res = await callback(back, started.state!.value);
      expect(ssoError(res)).toBe('sso_token_invalid');
      expect(sessionOf(res)).toBeUndefined();

      idp.accounts.set(`cy-unverified`, { email, email_verified: false });
      const unverified = await signIn(email, 'cy-unverified');
      expect(ssoError(unverified.res)).toBe('sso_email_unverified');
      idp.accounts.set(`cy-no-email`, {});
      expect(ssoError((await signIn(email, 'cy-no-email')).res)).toBe('sso_email_missing');

      const failed = (await auditRows(h.store, org.org_id, 'auth.sso_login_failed')).map((r) => JSON.parse(r.details!));
      expect(failed.map((f) => f.reason)).toEqual(['sso_token_invalid', 'sso_email_unverified', 'sso_email_missing']);
      expect(failed[0]).toMatchObject({ issuer: idp.issuer, started_as: email, detail: expect.stringContaining('nonce') });
      expect(await auditRows(h.store, org.org_id, 'auth.sso_login')).toEqual([]);
    });

    it('without JIT refuses someone who is not a member; with JIT adds them at the default role, only at the org\'s domains', async () => {
      const org = await h.org('JIT');
      const d = await connected(org, { jit: false });
      const email = `dee@${d}`;
      expect(ssoError((await signIn(email)).res)).toBe('sso_not_member');
      expect(await h.store.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
      const [refused] = await auditRows(h.store, org.org_id, 'auth.sso_login_failed');
      expect(JSON.parse(refused.details!)).toMatchObject({ reason: 'sso_not_member', email });

      await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: [d], jit: true, default_role: 'member' });
      const { res } = await signIn(email);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/app/');
      const user = await h.store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      expect(user.password_hash).toBeNull();
      const membership = await h.store.db.selectFrom('memberships').selectAll().where('user_id', '=', user.id).execute();
      expect(membership.map((m) => [m.org_id, m.role])).toEqual([[org.org_id, 'member']]);
      const [added] = await auditRows(h.store, org.org_id, 'member.added');
      expect(added).toMatchObject({ actor_id: user.id, target_id: membership[0].id });
      expect(JSON.parse(added.details!)).toMatchObject({ user_id: user.id, role: 'member', via: 'sso' });
      const [login] = await auditRows(h.store, org.org_id, 'auth.sso_login');
      expect(JSON.parse(login.details!)).toMatchObject({ email, jit: true });
      // A second sign-in finds the member.
      expect((await signIn(email)).res.headers.location).toBe('/app/');
      expect(await h.store.db.selectFrom('memberships').selectAll().where('user_id', '=', user.id).execute()).toHaveLength(1);

      // A member of the org signs in by way of membership, but JIT only adds addresses at its domains:
      // the provider asserting an address elsewhere adds no one.
      const stranger = `eve@elsewhere-${randomBytes(3).toString('hex')}.example`;
      idp.accounts.set('eve', { email: stranger, email_verified: true });
      expect(ssoError((await signIn(`dee@${d}`, 'eve')).res)).toBe('sso_not_member');
      expect(await h.store.db.selectFrom('users').select('id').where('email', '=', stranger).execute()).toEqual([]);
    });

    it('an org requiring two factors does not hold an SSO session to enrolling, as it holds a password one', async () => {
      const org = await h.org('SSO and 2FA');
      const d = await connected(org);
      const member = await h.user(org, 'member');
      const email = `gil@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();
      const policy = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.jwt), payload: { require_2fa: 'everyone' } });
      expect(policy.statusCode, policy.body).toBe(200);
      const members = (cookie: string) => h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: { cookie } });

      const sso = sessionOf((await signIn(email)).res)!;
      const viaSso = await members(`${SESSION_COOKIE}=${sso.value}`);
      expect(viaSso.statusCode, viaSso.body).toBe(200);
      // The same member by password is held to enrolment: the exemption is the SSO session's alone.
      const byPassword = await h.app.inject({ method: 'POST', url: '/v1/auth/session', payload: { email, password: member.password }, remoteAddress: ip() }) as unknown as Reply;
      expect(byPassword.statusCode, byPassword.body).toBe(200);
      const held = await members(`${SESSION_COOKIE}=${sessionOf(byPassword)!.value}`);
      expect(held.json().error.code).toBe('mfa_enrolment_required');
    });

    it('two first sign-ins of one new address at once make one user, one membership and one audit row', async () => {
      const org = await h.org('JIT race');
      const d = await connected(org, { jit: true });
      const email = `hal@${d}`;
      const tabs = await Promise.all([start(email), start(email)]);
      const backs = await Promise.all(tabs.map((t) => loginAtProvider(t.location, email, callbackUrl)));
      const results = await Promise.all(backs.map((back, i) => callback(back, tabs[i].state!.value)));
      expect(results.map((r) => r.headers.location)).toEqual(['/app/', '/app/']);
      const users = await h.store.db.selectFrom('users').select('id').where('email', '=', email).execute();
      expect(users).toHaveLength(1);
      expect(await h.store.db.selectFrom('memberships').select('id').where('user_id', '=', users[0].id).execute()).toHaveLength(1);
      expect(await auditRows(h.store, org.org_id, 'member.added')).toHaveLength(1);
      expect(await auditRows(h.store, org.org_id, 'auth.sso_login')).toHaveLength(2);
    });

    it('refuses a sign-in the provider refused, one whose connection was turned off meanwhile, and the 11th start in a minute', async () => {
      const org = await h.org('Refusals');
      const d = await connected(org);
      const member = await h.user(org, 'member');
      const email = `ivy@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();

      const denied = await start(email);
      const url = `${callbackUrl}?${new URLSearchParams({ error: 'access_denied', error_description: 'The user said no', state: denied.state!.value })}`;
      expect(ssoError(await callback(url, denied.state!.value))).toBe('sso_provider_error');

      const late = await start(email);
      const back = await loginAtProvider(late.location, email, callbackUrl);
      await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: [d], enabled: false });
      expect(ssoError(await callback(back, late.state!.value))).toBe('sso_not_configured');
      expect(ssoError((await start(email)).res)).toBe('sso_not_configured');
      const reasons = (await auditRows(h.store, org.org_id, 'auth.sso_login_failed')).map((r) => JSON.parse(r.details!).reason);
      expect(reasons).toEqual(['sso_provider_error', 'sso_not_configured']);

      const from = ip();
      const answers = [];
      for (let i = 0; i < 11; i++) answers.push((await start(email, from)).res);
      expect(answers.slice(0, 10).map(ssoError)).toEqual(Array(10).fill('sso_not_configured'));
      expect(ssoError(answers[10])).toBe('rate_limited');
    });

    it('sends an address no org has set up back to the sign-in screen', async () => {
      const res = (await start(`nobody@unclaimed-${randomBytes(3).toString('hex')}.example`)).res;
      expect(ssoError(res)).toBe('sso_not_configured');
      expect(res.cookies.find((c) => c.name === 'mallard_sso_state')).toBeUndefined();
      const bad = await h.app.inject({ method: 'GET', url: '/v1/auth/sso/start?email=not-an-email' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ data: null, error: { code: 'invalid_input' } });
    });

    it('a required connection refuses members\' passwords with the start URL, never the owner\'s', async () => {
      const org = await h.org('Required');
      const d = await connected(org, { required: true });
      const member = await h.user(org, 'admin');
      const email = `fay@${d}`;
      await h.store.db.updateTable('users').set({ email }).where('id', '=', member.userId).execute();
      const refused = await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: member.password }, remoteAddress: ip() });
      expect(refused.statusCode).toBe(403);
      const start = `/v1/auth/sso/start?${new URLSearchParams({ email, org_id: org.org_id })}`;
      expect(refused.json()).toEqual({ data: null, error: { code: 'sso_required', message: expect.any(String), status: 403, details: { start_url: start } } });
      const session = await h.app.inject({ method: 'POST', url: '/v1/auth/session', payload: { email, password: member.password }, remoteAddress: ip() });
      expect(session.json().error).toMatchObject({ code: 'sso_required', details: { start_url: start } });
      // A wrong password is still only a wrong password.
      const wrong = await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: 'not-it-at-all' }, remoteAddress: ip() });
      expect(wrong.json().error.code).toBe('invalid_credentials');
      // The owner's password is the break-glass.
      expect((await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: org.password }, remoteAddress: ip() })).statusCode).toBe(200);
      // The start URL works.
      const started = await h.app.inject({ method: 'GET', url: start, remoteAddress: ip() });
      expect(String(started.headers.location).startsWith(`${idp.issuer}/auth?`)).toBe(true);
      const failed = (await auditRows(h.store, org.org_id, 'auth.login_failed')).map((r) => JSON.parse(r.details!).reason);
      expect(failed).toEqual(['sso_required', 'sso_required', 'password']);
      // Turned off, the requirement goes with it.
      await connect(org, { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: [d], required: true, enabled: false });
      expect((await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password: member.password }, remoteAddress: ip() })).statusCode).toBe(200);
    });

    it('never writes the client secret, a code or a token to the audit log or the logs', async () => {
      const rows = await h.store.db.selectFrom('audit_log').select('details').where('action', 'like', '%sso%').execute();
      expect(rows.length).toBeGreaterThan(5);
      const text = JSON.stringify(rows) + h.logs.join('\n');
      expect(text).not.toContain(IDP_CLIENT_SECRET);
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./); // no JWT (ID token)
      expect(text).not.toMatch(/mls_[0-9A-Za-z]{43}/); // no session token
      // The callback's code and state and the start's address are redacted from the request log.
      const urls = h.logs.filter((l) => l.includes('/v1/auth/sso/'));
      expect(urls.some((l) => l.includes('code=[redacted]') && l.includes('state=[redacted]'))).toBe(true);
      expect(urls.some((l) => l.includes('email=[redacted]'))).toBe(true);
      expect(h.logs.join('\n')).not.toMatch(/[?&](code|state)=[A-Za-z0-9_-]{20,}/);
      expect(h.logs.join('\n')).not.toMatch(/email=[^[&]*%40/);
    });
  });
});

eachDialect('single sign-on and the outbound target policy', ({ name }) => {
  const resolver = tableResolver({ 'idp.internal.test': '10.2.3.4', 'idp.metadata.test': '169.254.169.254', 'idp.public.test': '203.0.113.40' });
  const h = useHarness(name, { config: { allowPrivateTargets: false }, resolver });

  it('never fetches an issuer at a private, loopback or metadata address when private targets are off', async () => {
    const org = await h.org('SSRF');
    const before = guardViolations.length;
    const provider = await startProvider(['http://127.0.0.1:8787/v1/auth/sso/callback']);
    try {
      for (const issuer of ['https://idp.internal.test', 'https://idp.metadata.test/tenant', 'http://169.254.169.254/', 'http://[::1]:8080', provider.issuer]) {
        const res = await h.app.inject({ method: 'PUT', url: '/v1/manage/sso', headers: bearer(org.jwt), payload: { issuer, client_id: 'c', client_secret: 's', email_domains: ['ssrf.example'] } });
        expect(res.statusCode, issuer).toBe(400);
        expect(res.json().error, issuer).toMatchObject({ code: 'sso_discovery_failed', details: { reason: 'must not target a private, loopback, link-local or metadata address' } });
      }
      // The loopback provider was refused before a request reached it; nothing else was connected to.
      expect(provider.requests).toEqual([]);
      expect(guardViolations.slice(before)).toEqual([]);
      expect(resolver.calls).toEqual(expect.arrayContaining(['idp.internal.test', 'idp.metadata.test']));
    } finally {
      await provider.close();
    }
  });
});
