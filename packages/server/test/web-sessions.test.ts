// Dashboard sessions in a cookie (issue 33, item 5): POST /v1/auth/session sets an HttpOnly,
// SameSite=Strict cookie (Secure behind an HTTPS public URL) and answers the CSRF token; the
// cookie alone reads, a write also needs the token; the session slides while used, ends when
// idle, at its absolute end, at sign-out and at a password change (which also ends earlier
// JWTs); a bearer credential wins over the cookie. Both dialects.
import { expect, it } from 'vitest';
import { MINUTE_MS, HOUR_MS } from '../src/domain/time.ts';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../src/auth/session-tokens.ts';
import { auditRows, bearer, createHarness, eachDialect, useHarness } from './helpers/harness.ts';

interface Cookie { name: string; value: string; path?: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; maxAge?: number }
interface SessionData { csrf_token: string; expires_at: string; absolute_expires_at: string; user: { email: string }; role: string }

eachDialect('dashboard sessions in a cookie', ({ name, skip }) => {
  const h = useHarness(name);

  async function signIn(email: string, password: string) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/auth/session', payload: { email, password } });
    expect(res.statusCode, res.body).toBe(200);
    const cookie = (res.cookies as Cookie[]).find((c) => c.name === 'mallard_session')!;
    return { res, cookie, data: res.json().data as SessionData, jar: { mallard_session: cookie.value } };
  }

  it.skipIf(skip)('sets an HttpOnly, SameSite=Strict cookie on /v1 and answers no token a script could keep', async () => {
    const org = await h.org();
    const { res, cookie, data } = await signIn(org.email, org.password);
    expect(cookie).toMatchObject({ path: '/v1', httpOnly: true, sameSite: 'Strict', maxAge: SESSION_ABSOLUTE_MS / 1000 });
    expect(cookie.secure).toBeFalsy();
    expect(cookie.value).toMatch(/^mls_[0-9A-Za-z]{43}$/);
    expect(res.body).not.toContain(cookie.value);
    expect(data).not.toHaveProperty('token');
    expect(data.user.email).toBe(org.email);
    expect(data.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(data.expires_at)).toBe(h.clock.now() + SESSION_IDLE_MS);
    // Only the HMAC is stored.
    const rows = await h.store.db.selectFrom('web_sessions').selectAll().where('user_id', '=', org.user_id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(cookie.value);
  });

  it.skipIf(skip)('marks the cookie Secure when MALLARD_PUBLIC_URL is HTTPS', async () => {
    const secure = await createHarness(name, { config: { publicUrl: 'https://mallard.example' } });
    try {
      const org = await secure.org();
      const res = await secure.app.inject({ method: 'POST', url: '/v1/auth/session', payload: { email: org.email, password: org.password } });
      expect((res.cookies as Cookie[]).find((c) => c.name === 'mallard_session')?.secure).toBe(true);
    } finally {
      await secure.close();
    }
  });

  it.skipIf(skip)('reads with the cookie alone; a write needs the session CSRF token', async () => {
    const org = await h.org();
    const { jar, data } = await signIn(org.email, org.password);
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar });
    expect(who.statusCode, who.body).toBe(200);
    expect(who.json().data.user.email).toBe(org.email);

    const write = { method: 'POST' as const, url: '/v1/manage/site', payload: { name: 'Cookie site', url: 'https://cookie.example' } };
    const noToken = await h.app.inject({ ...write, cookies: jar });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.code).toBe('csrf_failed');
    const wrong = await h.app.inject({ ...write, cookies: jar, headers: { 'x-csrf-token': 'f'.repeat(64) } });
    expect(wrong.json().error.code).toBe('csrf_failed');
    // Another session's token does not fit this one.
    const other = await signIn(org.email, org.password);
    const crossed = await h.app.inject({ ...write, cookies: jar, headers: { 'x-csrf-token': other.data.csrf_token } });
    expect(crossed.json().error.code).toBe('csrf_failed');
    expect(await h.store.db.selectFrom('sites').select('id').where('name', '=', 'Cookie site').execute()).toHaveLength(0);

    const created = await h.app.inject({ ...write, cookies: jar, headers: { 'x-csrf-token': data.csrf_token } });
    expect(created.statusCode, created.body).toBe(201);
    // GET /v1/auth/session gives a reloaded page the same token back.
    const again = await h.app.inject({ method: 'GET', url: '/v1/auth/session', cookies: jar });
    expect(again.json().data.csrf_token).toBe(data.csrf_token);
  });

  it.skipIf(skip)('lets a bearer credential win over a cookie, and asks no CSRF token of it', async () => {
    const org = await h.org();
    const { jar } = await signIn(org.email, org.password);
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/site', cookies: jar, headers: bearer(org.jwt), payload: { name: 'Bearer site', url: 'https://bearer.example' } });
    expect(res.statusCode, res.body).toBe(201);
    const bad = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar, headers: bearer('not-a-token') });
    expect(bad.statusCode).toBe(401);
    // GET /v1/auth/session is about this browser's cookie: without one it answers null, not an error.
    for (const headers of [{}, bearer(org.jwt)]) {
      const none = await h.app.inject({ method: 'GET', url: '/v1/auth/session', headers });
      expect(none.statusCode, none.body).toBe(200);
      expect(none.json()).toEqual({ data: null, error: null });
    }
  });

  it.skipIf(skip)('slides while used, ends when idle and at its absolute end', async () => {
    const org = await h.org();
    const start = h.clock.now();
    const { jar } = await signIn(org.email, org.password);
    const whoami = () => h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar });
    // Used every 20 minutes, it outlives its first 30-minute deadline...
    for (let t = 20 * MINUTE_MS; t < SESSION_ABSOLUTE_MS; t += 20 * MINUTE_MS) {
      h.clock.set(start + t);
      expect((await whoami()).statusCode).toBe(200);
    }
    // ...until its absolute end.
    h.clock.set(start + SESSION_ABSOLUTE_MS);
    const ended = await whoami();
    expect(ended.statusCode).toBe(401);
    expect(ended.json().error.code).toBe('invalid_jwt');

    const idle = await signIn(org.email, org.password);
    h.clock.set(h.clock.now() + SESSION_IDLE_MS + 1);
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: idle.jar })).statusCode).toBe(401);
  });

  it.skipIf(skip)('ends at sign-out: the cookie is cleared and no longer works', async () => {
    const org = await h.org();
    const { jar, data } = await signIn(org.email, org.password);
    const forged = await h.app.inject({ method: 'DELETE', url: '/v1/auth/session', cookies: jar });
    expect(forged.json().error.code).toBe('csrf_failed');
    const out = await h.app.inject({ method: 'DELETE', url: '/v1/auth/session', cookies: jar, headers: { 'x-csrf-token': data.csrf_token } });
    expect(out.statusCode, out.body).toBe(200);
    const cleared = (out.cookies as Cookie[]).find((c) => c.name === 'mallard_session')!;
    expect(cleared.value).toBe('');
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: '/v1/auth/session', cookies: jar })).json().data).toBeNull();
    expect(await auditRows(h.store, org.org_id, 'auth.logout')).toHaveLength(1);

    // POST /v1/auth/logout by cookie ends the session too.
    const second = await signIn(org.email, org.password);
    const logout = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', cookies: second.jar, headers: { 'x-csrf-token': second.data.csrf_token } });
    expect(logout.statusCode, logout.body).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: second.jar })).statusCode).toBe(401);
  });

  it.skipIf(skip)('ends every other session and earlier JWTs at a password change, keeping the caller signed in', async () => {
    const org = await h.org();
    const laptop = await signIn(org.email, org.password);
    const phone = await signIn(org.email, org.password);
    const oldJwt = await h.login(org.email, org.password);
    h.clock.set(h.clock.now() + 2_000);

    const wrong = await h.app.inject({ method: 'POST', url: '/v1/auth/change-password', cookies: laptop.jar, headers: { 'x-csrf-token': laptop.data.csrf_token }, payload: { current_password: 'not-it', password: 'a-new-password-123' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details.field).toBe('current_password');

    const res = await h.app.inject({ method: 'POST', url: '/v1/auth/change-password', cookies: laptop.jar, headers: { 'x-csrf-token': laptop.data.csrf_token }, payload: { current_password: org.password, password: 'a-new-password-123' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.ended_sessions).toBe(2);
    const renewed = (res.cookies as Cookie[]).find((c) => c.name === 'mallard_session')!;
    expect(renewed.value).not.toBe(laptop.cookie.value);
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: { mallard_session: renewed.value } })).statusCode).toBe(200);
    for (const jar of [laptop.jar, phone.jar]) expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar })).statusCode).toBe(401);
    const stale = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(oldJwt) });
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error.code).toBe('invalid_jwt');
    // The new password works; a JWT issued after the change verifies.
    h.clock.set(h.clock.now() + 1_000);
    const fresh = await h.login(org.email, 'a-new-password-123');
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(fresh) })).statusCode).toBe(200);
    expect(await auditRows(h.store, org.org_id, 'auth.password_changed')).toHaveLength(1);
  });

  it.skipIf(skip)('refuses a cookie of the wrong shape, an unknown one, and a removed member\'s', async () => {
    const org = await h.org();
    for (const value of ['garbage', `mls_${'A'.repeat(43)}`]) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: { mallard_session: value } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_jwt');
    }
    const member = await h.user(org, 'member');
    const { jar } = await signIn(member.email, member.password);
    await h.app.inject({ method: 'DELETE', url: `/v1/manage/members/${member.membershipId}`, headers: bearer(org.jwt) });
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', cookies: jar })).statusCode).toBe(401);
  });

  it.skipIf(skip)('keeps a session to the hour it was signed into', () => {
    expect(SESSION_ABSOLUTE_MS).toBe(12 * HOUR_MS);
  });
});
