// Two-factor sign-in over HTTP, on both dialects: enrolment (setup, enable with a code, recovery
// codes once), sign-in without and with a code, a wrong code counted toward the account's lockout,
// a replayed code refused, a recovery code accepted once, new recovery codes voiding the old,
// turning it off, an admin's reset, the org's policy (403 mfa_enrolment_required until the user
// enrols; keys unaffected) and audit rows that never hold the secret or a code.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { auditRows, bearer, eachDialect, useHarness, type Org, type User } from './helpers/harness.ts';
import { enrolTotp, totpAt, type Enrolled } from './helpers/two-factor.ts';

const STEP = 30_000;
type Reply = Awaited<ReturnType<ReturnType<typeof useHarness>['app']['inject']>>;

eachDialect('two-factor sign-in', ({ name, skip }) => {
  const h = useHarness(name, { newMinuteEachTest: true });

  // Each test signs in from its own address, so per-address counters never carry over.
  let ip = '';
  const newAddress = () => { ip = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`; };
  const login = (email: string, password: string, otp?: string) =>
    h.app.inject({ method: 'POST', url: '/v1/auth/login', remoteAddress: ip, payload: otp === undefined ? { email, password } : { email, password, otp } });
  const status = (jwt: string) => h.app.inject({ method: 'GET', url: '/v1/auth/2fa', headers: bearer(jwt) });
  const post = (jwt: string, url: string, payload?: object) => h.app.inject({ method: 'POST', url, headers: bearer(jwt), ...(payload ? { payload } : {}) });
  /** The next step's code: the clock moves on a step first, as a user waits for the app's next code. */
  const nextCode = (secret: string) => { h.clock.advance(STEP); return totpAt(secret, h.clock.now()); };

  function expectError(res: Reply, status: number, code: string) {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ data: null, error: { code, status } });
  }

  /** An org and a member of it with 2FA on. */
  async function enrolledMember(role: User['role'] = 'member'): Promise<{ org: Org; user: User; enrolled: Enrolled }> {
    newAddress();
    const org = await h.org('Twofa');
    const user = await h.user(org, role);
    return { org, user, enrolled: await enrolTotp(h.app, bearer(user.jwt), h.clock.now()) };
  }

  it.skipIf(skip)('enrols: status, setup (secret, otpauth URL, SVG QR code), a wrong code refused, enable answers ten recovery codes once', async () => {
    const org = await h.org('Enrol');
    const user = await h.user(org, 'viewer');
    expect((await status(user.jwt)).json().data).toEqual({ enabled: false, confirmed_at: null, recovery_codes_left: 0, required: false });
    // Enabling before any setup is a conflict.
    expectError(await post(user.jwt, '/v1/auth/2fa/enable', { code: '123456' }), 409, 'conflict');

    const first = await post(user.jwt, '/v1/auth/2fa/setup');
    expect(first.statusCode, first.body).toBe(200);
    // Setup again while unconfirmed: a new secret replaces the first.
    const setup = await post(user.jwt, '/v1/auth/2fa/setup');
    const { secret, otpauth_url: url, qr_svg: svg } = setup.json().data;
    expect(secret).not.toBe(first.json().data.secret);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(url).toBe(`otpauth://totp/Mallard:${encodeURIComponent(user.email)}?secret=${secret}&issuer=Mallard`);
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('<path');
    // The stored secret is sealed, never the secret itself.
    const row = await h.store.db.selectFrom('user_mfa').selectAll().where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    expect(row.totp_secret).not.toContain(secret);
    expect(h.secrets.decrypt(row.totp_secret)).toBe(secret);
    expect(row.confirmed_at).toBeNull();

    // The first secret's code no longer enables; a wrong code is a 400 on `code`, not a 401.
    const stale = await post(user.jwt, '/v1/auth/2fa/enable', { code: totpAt(first.json().data.secret, h.clock.now()) });
    expectError(stale, 400, 'invalid_input');
    expect(stale.json().error.details).toMatchObject({ field: 'code' });
    // Still not enabled: signing in needs no code yet.
    newAddress();
    expect((await login(user.email, user.password)).statusCode).toBe(200);

    const enabled = await post(user.jwt, '/v1/auth/2fa/enable', { code: totpAt(secret, h.clock.now()) });
    expect(enabled.statusCode, enabled.body).toBe(200);
    const codes = enabled.json().data.recovery_codes as string[];
    expect(enabled.json().data.enabled).toBe(true);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[2-9a-z]{4}-[2-9a-z]{4}$/);
    // Kept as HMACs only.
    const stored = await h.store.db.selectFrom('user_recovery_codes').select('code_hash').where('user_id', '=', user.userId).execute();
    expect(stored).toHaveLength(10);
    for (const { code_hash: hash } of stored) for (const code of codes) expect(hash).not.toContain(code.replace('-', ''));

    const after = (await status(user.jwt)).json().data;
    expect(after).toEqual({ enabled: true, confirmed_at: new Date(h.clock.now()).toISOString(), recovery_codes_left: 10, required: false });
    // Confirmed: setup and enable are conflicts now.
    expectError(await post(user.jwt, '/v1/auth/2fa/setup'), 409, 'conflict');
    expectError(await post(user.jwt, '/v1/auth/2fa/enable', { code: nextCode(secret) }), 409, 'conflict');
    // An API key has no account: the routes take user tokens only.
    expectError(await h.app.inject({ method: 'GET', url: '/v1/auth/2fa', headers: bearer(org.keys.secret) }), 401, 'jwt_required');
    const audit = await auditRows(h.store, org.org_id, 'auth.2fa_enabled');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'user', actor_id: user.userId, target_type: 'user', target_id: user.userId });
  });

  it.skipIf(skip)('signs in: without a code 401 mfa_required, a wrong code 401 invalid_otp (audited), the current code (spaces allowed) 200, the same code again refused', async () => {
    const { org, user, enrolled } = await enrolledMember();
    const without = await login(user.email, user.password);
    expectError(without, 401, 'mfa_required');
    expect(without.json().error.details).toEqual({ methods: ['totp', 'recovery_code'] });
    // The wrong password is still only invalid_credentials: the code is asked for after the password.
    expectError(await login(user.email, 'wrong-password', totpAt(enrolled.secret, h.clock.now())), 401, 'invalid_credentials');

    const code = nextCode(enrolled.secret);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectError(await login(user.email, user.password, wrong), 401, 'invalid_otp');
    expectError(await login(user.email, user.password, 'not-a-code'), 401, 'invalid_otp');
    const failed = await auditRows(h.store, org.org_id, 'auth.login_failed');
    expect(failed.map((r) => JSON.parse(r.details!).reason)).toEqual(['password', 'otp', 'otp']);

    const ok = await login(user.email, user.password, `${code.slice(0, 3)} ${code.slice(3)}`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.user.email).toBe(user.email);
    expect(ok.json().data).not.toHaveProperty('mfa_enrolment_required');
    // The token works.
    expect((await status(ok.json().data.token)).json().data.enabled).toBe(true);
    // Replayed within its step, or a step later (still within the drift): refused.
    expectError(await login(user.email, user.password, code), 401, 'invalid_otp');
    h.clock.advance(STEP);
    expectError(await login(user.email, user.password, code), 401, 'invalid_otp');
    // The next step's code is fine.
    expect((await login(user.email, user.password, totpAt(enrolled.secret, h.clock.now()))).statusCode).toBe(200);
    // Drift: the app's clock a step behind the server's still signs in.
    h.clock.advance(2 * STEP);
    expect((await login(user.email, user.password, totpAt(enrolled.secret, h.clock.now() - STEP))).statusCode).toBe(200);
  });

  it.skipIf(skip)('the dashboard\'s cookie sign-in (POST /v1/auth/session) asks for the code the same way', async () => {
    const { user, enrolled } = await enrolledMember();
    const session = (otp?: string) => h.app.inject({ method: 'POST', url: '/v1/auth/session', remoteAddress: ip, payload: otp === undefined ? { email: user.email, password: user.password } : { email: user.email, password: user.password, otp } });
    expectError(await session(), 401, 'mfa_required');
    expectError(await session('000000'), 401, 'invalid_otp');
    const ok = await session(nextCode(enrolled.secret));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['set-cookie']).toBeDefined();
  });

  it.skipIf(skip)('a wrong code counts toward the account lockout exactly as a wrong password does', async () => {
    const { user, enrolled } = await enrolledMember();
    const code = nextCode(enrolled.secret);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) expectError(await login(user.email, user.password, wrong), 401, 'invalid_otp');
    // The 5th failure starts the account's delay: the right password and the right code wait it out.
    const locked = await login(user.email, user.password, code);
    expectError(locked, 429, 'account_locked');
    expect(locked.json().error.details.reset_at).toBe(new Date(h.clock.now() + 1000).toISOString());
    // mfa_required (the password was right) is no failure: it does not add to the count.
    h.clock.advance(1000);
    expectError(await login(user.email, user.password), 401, 'mfa_required');
    expect((await login(user.email, user.password, code)).statusCode).toBe(200);
  });

  it.skipIf(skip)('a recovery code signs in once (audited, never the code); typed in capitals without its hyphen it still counts', async () => {
    const { org, user, enrolled } = await enrolledMember();
    const [first, second] = enrolled.recoveryCodes;
    const ok = await login(user.email, user.password, first);
    expect(ok.statusCode, ok.body).toBe(200);
    expectError(await login(user.email, user.password, first), 401, 'invalid_otp');
    expect((await login(user.email, user.password, second.replace('-', '').toUpperCase())).statusCode).toBe(200);
    expect((await status(user.jwt)).json().data.recovery_codes_left).toBe(8);
    const used = await auditRows(h.store, org.org_id, 'auth.recovery_code_used');
    expect(used).toHaveLength(2);
    expect(JSON.parse(used[1].details!)).toMatchObject({ email: user.email, recovery_codes_left: 8 });
  });

  it.skipIf(skip)('new recovery codes (for a current code) void the old ones', async () => {
    const { org, user, enrolled } = await enrolledMember();
    expectError(await post(user.jwt, '/v1/auth/2fa/recovery-codes', { code: '000000' }), 400, 'invalid_input');
    const res = await post(user.jwt, '/v1/auth/2fa/recovery-codes', { code: nextCode(enrolled.secret) });
    expect(res.statusCode, res.body).toBe(200);
    const fresh = res.json().data.recovery_codes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((c) => enrolled.recoveryCodes.includes(c))).toEqual([]);
    expectError(await login(user.email, user.password, enrolled.recoveryCodes[0]), 401, 'invalid_otp');
    expect((await login(user.email, user.password, fresh[0])).statusCode).toBe(200);
    // A recovery code also makes new ones (the app is what was lost), and is used up doing so.
    const again = await post(user.jwt, '/v1/auth/2fa/recovery-codes', { code: fresh[1] });
    expect(again.statusCode, again.body).toBe(200);
    expectError(await login(user.email, user.password, fresh[2]), 401, 'invalid_otp');
    expect(await auditRows(h.store, org.org_id, 'auth.recovery_codes_regenerated')).toHaveLength(2);
  });

  it.skipIf(skip)('turning it off needs the password and a code; then the password alone signs in', async () => {
    const { org, user, enrolled } = await enrolledMember();
    const badPassword = await post(user.jwt, '/v1/auth/2fa/disable', { password: 'not-it', code: nextCode(enrolled.secret) });
    expectError(badPassword, 400, 'invalid_input');
    expect(badPassword.json().error.details).toMatchObject({ field: 'password' });
    expectError(await post(user.jwt, '/v1/auth/2fa/disable', { password: user.password, code: '000000' }), 400, 'invalid_input');
    expectError(await post(user.jwt, '/v1/auth/2fa/disable', { password: user.password }), 400, 'invalid_input');
    const off = await post(user.jwt, '/v1/auth/2fa/disable', { password: user.password, code: totpAt(enrolled.secret, h.clock.now()) });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toEqual({ enabled: false });
    expect((await status(user.jwt)).json().data).toEqual({ enabled: false, confirmed_at: null, recovery_codes_left: 0, required: false });
    expect(await h.store.db.selectFrom('user_recovery_codes').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    expectError(await post(user.jwt, '/v1/auth/2fa/disable', { password: user.password, code: '000000' }), 409, 'conflict');
    expect(await auditRows(h.store, org.org_id, 'auth.2fa_disabled')).toHaveLength(1);
  });

  it.skipIf(skip)('an admin resets a member\'s 2FA (a lost device), audited; only an owner resets an owner\'s; a member cannot; another org\'s member is 404', async () => {
    const { org, user } = await enrolledMember();
    const admin = await h.user(org, 'admin');
    const reset = (jwt: string, id: string) => post(jwt, `/v1/manage/members/${id}/reset-2fa`);
    expectError(await reset(user.jwt, user.membershipId), 403, 'insufficient_role');
    const other = await h.org('Elsewhere');
    expectError(await reset(other.jwt, user.membershipId), 404, 'not_found');

    const res = await reset(admin.jwt, user.membershipId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ id: user.membershipId, user_id: user.userId, reset: true, was_enabled: true });
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    const audit = await auditRows(h.store, org.org_id, 'auth.2fa_reset');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: admin.userId, target_type: 'member', target_id: user.membershipId });
    expect(JSON.parse(audit[0].details!)).toEqual({ user_id: user.userId, email: user.email, was_enabled: true });

    // The owner's: an admin may not, the owner may.
    const ownerMembership = await h.store.db.selectFrom('memberships').select('id').where('org_id', '=', org.org_id).where('user_id', '=', org.user_id).executeTakeFirstOrThrow();
    await enrolTotp(h.app, bearer(org.jwt), h.clock.now());
    expectError(await reset(admin.jwt, ownerMembership.id), 403, 'insufficient_role');
    const byOwner = await reset(org.jwt, ownerMembership.id);
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    expect(byOwner.json().data.was_enabled).toBe(true);
  });

  it.skipIf(skip)('the org policy: an admin without 2FA signs in but may only enrol (403 mfa_enrolment_required elsewhere), then everything; may not turn it off; keys and viewers unaffected', async () => {
    newAddress();
    const org = await h.org('Policy');
    const admin = await h.user(org, 'admin');
    const viewer = await h.user(org, 'viewer');
    // The setting: GET shows it, PATCH (role admin) changes it and keeps duck_facts as it was.
    const settings = (jwt: string) => h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(jwt) });
    expect((await settings(org.jwt)).json().data).toMatchObject({ duck_facts: false, require_2fa: 'off' });
    expectError(await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(viewer.jwt), payload: { require_2fa: 'admins' } }), 403, 'insufficient_role');
    expectError(await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.keys.secret), payload: { require_2fa: 'sometimes' } }), 400, 'invalid_input');
    await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.keys.secret), payload: { duck_facts: true } });
    const set = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.keys.secret), payload: { require_2fa: 'admins' } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ duck_facts: true, require_2fa: 'admins' });

    const signedIn = await login(admin.email, admin.password);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().data.mfa_enrolment_required).toBe(true);
    const jwt = signedIn.json().data.token as string;
    const members = () => h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(jwt) });
    expectError(await members(), 403, 'mfa_enrolment_required');
    expectError(await h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${org.site_id}`, headers: bearer(jwt) }), 403, 'mfa_enrolment_required');
    // A token issued before the policy is held to it as well: the policy is read on every request.
    expectError(await h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(admin.jwt) }), 403, 'mfa_enrolment_required');
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(jwt) });
    expect(who.statusCode, who.body).toBe(200);
    expect(who.json().data.mfa_enrolment_required).toBe(true);
    expect((await status(jwt)).json().data).toMatchObject({ enabled: false, required: true });
    // The viewer is not covered by 'admins'; the org's keys never are.
    expect((await login(viewer.email, viewer.password)).json().data).not.toHaveProperty('mfa_enrolment_required');
    expect((await h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(viewer.jwt) })).statusCode).toBe(200);
    expect((await settings(org.keys.secret)).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${org.site_id}`, headers: bearer(org.keys.secret) })).statusCode).toBe(200);

    // Enrolment is open to them; afterwards everything is.
    const enrolled = await enrolTotp(h.app, bearer(jwt), h.clock.now());
    expect((await members()).statusCode).toBe(200);
    const after = await login(admin.email, admin.password, nextCode(enrolled.secret));
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().data).not.toHaveProperty('mfa_enrolment_required');
    // The org requires it of them: they may not turn it off.
    expectError(await post(jwt, '/v1/auth/2fa/disable', { password: admin.password, code: nextCode(enrolled.secret) }), 403, 'mfa_required_by_org');
    // 'everyone' covers the viewer too; logging out stays open to them.
    await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.keys.secret), payload: { require_2fa: 'everyone' } });
    expectError(await h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(viewer.jwt) }), 403, 'mfa_enrolment_required');
    expect((await post(viewer.jwt, '/v1/auth/logout')).statusCode).toBe(200);
    expect((await settings(org.keys.secret)).json().data.require_2fa).toBe('everyone');
  });

  it.skipIf(skip)('no audit row, log line or later answer holds an authenticator secret or a recovery code', async () => {
    const { org, user, enrolled } = await enrolledMember();
    await login(user.email, user.password, enrolled.recoveryCodes[0]);
    await login(user.email, user.password, '000000');
    await post(user.jwt, '/v1/auth/2fa/recovery-codes', { code: nextCode(enrolled.secret) });
    const rows = await h.store.db.selectFrom('audit_log').selectAll().where('org_id', '=', org.org_id).execute();
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['auth.2fa_enabled', 'auth.recovery_code_used', 'auth.login_failed', 'auth.recovery_codes_regenerated']));
    const text = JSON.stringify(rows);
    for (const secret of [enrolled.secret, ...enrolled.recoveryCodes, ...enrolled.recoveryCodes.map((c) => c.replace('-', ''))]) expect(text).not.toContain(secret);
    expect(JSON.stringify((await status(user.jwt)).json())).not.toContain(enrolled.secret);
  });
});
