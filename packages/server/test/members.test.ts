// Members: list, add (existing user or invitation), set-password with the invitation token,
// role changes, removal, the owner rules and the last-owner guard, role checks read on every
// request, and one audit row per write. Both dialects.
import { randomBytes, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { bearer, eachDialect, useHarness, auditRows } from './helpers/harness.ts';

const DAY = 24 * 60 * 60 * 1000;

type Role = 'viewer' | 'member' | 'admin' | 'owner';
interface MemberRecord { id: string; user_id: string; email: string; role: string; status: string; created_at: string; updated_at: string }

const newEmail = (tag = 'person') => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

eachDialect('members', ({ name, skip }) => {
  // Each test in its own minute: failed-authentication counters never carry over.
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  async function setup() {
    const org = await h.org('People');
    return { org, jwt: org.jwt };
  }

  const list = (jwt: string) => h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(jwt) });
  const add = (jwt: string, email: string, role: Role) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(jwt), payload: { email, role } });
  const patch = (jwt: string, id: string, role: Role) =>
    h.app.inject({ method: 'PATCH', url: `/v1/manage/members/${id}`, headers: bearer(jwt), payload: { role } });
  const remove = (jwt: string, id: string) => h.app.inject({ method: 'DELETE', url: `/v1/manage/members/${id}`, headers: bearer(jwt) });
  const setPassword = (token: string, password: string) =>
    h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token, password } });
  const login = (email: string, password: string, orgId?: string) =>
    h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: orgId ? { email, password, org_id: orgId } : { email, password } });

  /** Invites a new email with a role, redeems the invitation and logs in. */
  async function person(ownerJwt: string, role: Role) {
    const email = newEmail(role);
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const res = await add(ownerJwt, email, role);
    expect(res.statusCode).toBe(201);
    const member = res.json().data as MemberRecord & { invitation: { token: string } };
    expect((await setPassword(member.invitation.token, password)).statusCode).toBe(200);
    return { member, email, password, jwt: await h.login(email, password) };
  }

  it.skipIf(skip)('lists the owner of a new org', async () => {
    const { org, jwt } = await setup();
    const res = await list(jwt);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        members: [{
          id: expect.stringMatching(/^[0-9a-f-]{36}$/), user_id: org.user_id, email: org.email, role: 'owner', status: 'active',
          created_at: expect.any(String), updated_at: expect.any(String),
        }],
      },
      error: null,
    });
  });

  it.skipIf(skip)('members routes need a user token, even from a key holding every scope', async () => {
    const { org } = await setup();
    for (const req of [
      { method: 'GET' as const, url: '/v1/manage/members' },
      { method: 'POST' as const, url: '/v1/manage/members', payload: { email: newEmail(), role: 'viewer' } },
    ]) {
      const res = await h.app.inject({ ...req, headers: bearer(org.keys.secret) });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('jwt_required');
    }
    const users = await h.store.db.selectFrom('memberships').select('id').where('org_id', '=', org.org_id).execute();
    expect(users).toHaveLength(1);
  });

  it.skipIf(skip)('adding a new email creates an invited user with a one-time invitation shown only once', async () => {
    const { org, jwt } = await setup();
    const email = newEmail('invitee');
    const res = await add(jwt, email.toUpperCase(), 'member');
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ email, role: 'member', status: 'invited', user_id: expect.any(String) });
    expect(created.invitation).toEqual({
      token: expect.stringMatching(/^mlt_[A-Za-z0-9]{40}$/),
      expires_at: new Date(h.clock.now() + 7 * DAY).toISOString(),
      set_password_url: expect.any(String),
      // No SMTP_URL in this suite: the admin passes the token on (invitation-mail.test.ts mails it).
      emailed: false,
    });
    const token: string = created.invitation.token;

    // Only the HMAC of the token is stored.
    const stored = await h.store.db.selectFrom('user_tokens').selectAll().where('user_id', '=', created.user_id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toBe(token);
    expect(stored[0].token_hash).not.toContain(token);

    // The list shows the member, never the token again.
    const listed = await list(jwt);
    expect(listed.body).not.toContain(token);
    const row = listed.json().data.members.find((m: MemberRecord) => m.id === created.id);
    expect(row).toEqual({ id: created.id, user_id: created.user_id, email, role: 'member', status: 'invited', created_at: created.created_at, updated_at: created.updated_at });
    expect(row).not.toHaveProperty('invitation');

    const audit = await auditRows(h.store, org.org_id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'member.added', actor_type: 'user', actor_id: org.user_id, target_type: 'member', target_id: created.id });
    expect(JSON.stringify(audit[0])).not.toContain(token);
  });

  it.skipIf(skip)('the invited user sets a password with the token, then logs in into the org with the given role', async () => {
    const { org, jwt } = await setup();
    const email = newEmail('invitee');
    const created = (await add(jwt, email, 'admin')).json().data;
    const password = 'correct horse battery';

    // No password yet: login fails.
    const early = await login(email, password);
    expect(early.statusCode).toBe(401);
    expect(early.json().error.code).toBe('invalid_credentials');

    const set = await setPassword(created.invitation.token, password);
    expect(set.statusCode).toBe(200);
    expect(set.json().data).toEqual({ user: { id: created.user_id, email } });

    const res = await login(email, password);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ user: { id: created.user_id, email }, org: { id: org.org_id }, role: 'admin' });
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(res.json().data.token) });
    expect(who.json().data).toMatchObject({ key_type: 'jwt', role: 'admin', user: { id: created.user_id, email } });

    const listed = (await list(jwt)).json().data.members.find((m: MemberRecord) => m.id === created.id);
    expect(listed.status).toBe('active');
  });

  it.skipIf(skip)('an invitation token is single-use', async () => {
    const { jwt } = await setup();
    const email = newEmail('once');
    const created = (await add(jwt, email, 'viewer')).json().data;
    expect((await setPassword(created.invitation.token, 'first-password')).statusCode).toBe(200);
    const again = await setPassword(created.invitation.token, 'second-password');
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'token' } });
    // The first password stands; the second never took.
    expect((await login(email, 'first-password')).statusCode).toBe(200);
    expect((await login(email, 'second-password')).statusCode).toBe(401);
  });

  it.skipIf(skip)('an invitation token expires after 7 days', async () => {
    const { jwt } = await setup();
    const late = (await add(jwt, newEmail('late'), 'viewer')).json().data;
    const onTime = (await add(jwt, newEmail('ontime'), 'viewer')).json().data;

    h.clock.advance(7 * DAY - 60_000);
    const ok = await setPassword(onTime.invitation.token, 'in-time-password');
    expect(ok.statusCode).toBe(200);

    h.clock.advance(60_000);
    const expired = await setPassword(late.invitation.token, 'too-late-password');
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'token' } });
    const stillNoPassword = await login(late.email, 'too-late-password');
    expect(stillNoPassword.statusCode).toBe(401);
  });

  it.skipIf(skip)('set-password rejects unknown tokens and passwords outside 8 to 256 characters', async () => {
    const { jwt } = await setup();
    const created = (await add(jwt, newEmail('pw'), 'viewer')).json().data;
    const unknown = await setPassword(`mlt_${'a'.repeat(40)}`, 'long-enough');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('invalid_input');
    for (const password of ['short77', 'x'.repeat(257)]) {
      const res = await setPassword(created.invitation.token, password);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'password' } });
    }
    // The failed attempts did not use the token up.
    expect((await setPassword(created.invitation.token, 'x'.repeat(256))).statusCode).toBe(200);
  });

  it.skipIf(skip)('adding an existing user needs no invitation; they log in to the new org with their own password', async () => {
    const { org, jwt } = await setup();
    const other = await h.org('Elsewhere');
    const res = await add(jwt, other.email, 'member');
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ user_id: other.user_id, email: other.email, role: 'member', status: 'active' });
    expect(created).not.toHaveProperty('invitation');
    const tokens = await h.store.db.selectFrom('user_tokens').select('id').where('user_id', '=', other.user_id).execute();
    expect(tokens).toHaveLength(0);

    const here = await login(other.email, other.password, org.org_id);
    expect(here.statusCode).toBe(200);
    expect(here.json().data).toMatchObject({ org: { id: org.org_id }, role: 'member' });
    // Their own org is still the default (oldest membership), where they are the owner.
    const home = await login(other.email, other.password);
    expect(home.json().data).toMatchObject({ org: { id: other.org_id }, role: 'owner' });
  });

  it.skipIf(skip)('adding the same email twice is 409 conflict (any case) and writes nothing more', async () => {
    const { org, jwt } = await setup();
    const email = newEmail('twice');
    expect((await add(jwt, email, 'viewer')).statusCode).toBe(201);
    for (const again of [email, email.toUpperCase()]) {
      const res = await add(jwt, again, 'admin');
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ data: null, error: { code: 'conflict', message: expect.any(String), status: 409 } });
    }
    const owner = await add(jwt, org.email, 'viewer');
    expect(owner.statusCode).toBe(409);

    const members = (await list(jwt)).json().data.members as MemberRecord[];
    expect(members.filter((m) => m.email === email)).toEqual([expect.objectContaining({ role: 'viewer' })]);
    expect(await auditRows(h.store, org.org_id, 'member.added')).toHaveLength(1);
    const users = await h.store.db.selectFrom('users').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(1);
  });

  it.skipIf(skip)('add validates email and role', async () => {
    const { jwt } = await setup();
    for (const payload of [{ email: 'not-an-email', role: 'viewer' }, { email: newEmail(), role: 'superuser' }, { email: newEmail() }, { email: newEmail(), role: 'viewer', name: 'x' }]) {
      const res = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(jwt), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
  });

  it.skipIf(skip)('PATCH changes a role: 200 with the record and one audit row', async () => {
    const { org, jwt } = await setup();
    const { member } = await person(jwt, 'viewer');
    h.clock.advance(1000);
    const before = await auditRows(h.store, org.org_id);
    const res = await patch(jwt, member.id, 'admin');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      id: member.id, user_id: member.user_id, email: member.email, role: 'admin', status: 'active',
      created_at: member.created_at, updated_at: new Date(h.clock.now()).toISOString(),
    });
    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'member.role_changed', actor_type: 'user', actor_id: org.user_id, target_id: member.id });
    expect(JSON.parse(after.at(-1)!.details!)).toEqual({ from: 'viewer', to: 'admin' });
    const listed = (await list(jwt)).json().data.members.find((m: MemberRecord) => m.id === member.id);
    expect(listed.role).toBe('admin');
  });

  it.skipIf(skip)('PATCH or DELETE of an unknown or another org\'s member is 404; a bad role is 400', async () => {
    const { jwt } = await setup();
    const other = await setup();
    const foreign = (await list(other.jwt)).json().data.members[0] as MemberRecord;
    for (const id of [randomUUID(), foreign.id]) {
      expect((await patch(jwt, id, 'viewer')).statusCode).toBe(404);
      expect((await remove(jwt, id)).statusCode).toBe(404);
    }
    const bad = await h.app.inject({ method: 'PATCH', url: `/v1/manage/members/${foreign.id}`, headers: bearer(jwt), payload: { role: 'king' } });
    expect(bad.statusCode).toBe(400);
    const badId = await patch(jwt, 'nope', 'viewer');
    expect(badId.json().error.code).toBe('invalid_uuid');
    // The other org's owner is untouched.
    expect((await list(other.jwt)).json().data.members[0].role).toBe('owner');
  });

  it.skipIf(skip)('DELETE removes a member: 200 {id, deleted:true}, gone from the list, their token stops working at once', async () => {
    const { org, jwt } = await setup();
    const gone = await person(jwt, 'admin');
    expect((await list(gone.jwt)).statusCode).toBe(200);
    const before = await auditRows(h.store, org.org_id);

    const res = await remove(jwt, gone.member.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { id: gone.member.id, deleted: true }, error: null });

    const members = (await list(jwt)).json().data.members as MemberRecord[];
    expect(members.map((m) => m.id)).not.toContain(gone.member.id);
    expect(members).toHaveLength(1);

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'member.removed', actor_type: 'user', actor_id: org.user_id, target_id: gone.member.id });

    const stale = await list(gone.jwt);
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error.code).toBe('invalid_jwt');
    // Removed from the org, they cannot log in to it either.
    const relogin = await login(gone.email, gone.password, org.org_id);
    expect(relogin.statusCode).toBe(401);
    expect((await remove(jwt, gone.member.id)).statusCode).toBe(404);
  });

  it.skipIf(skip)('a viewer can list members but not add, change or remove them (403 insufficient_role)', async () => {
    const { org, jwt } = await setup();
    const viewer = await person(jwt, 'viewer');
    const listed = await list(viewer.jwt);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.members).toHaveLength(2);

    const before = await auditRows(h.store, org.org_id);
    const ownerId = listed.json().data.members.find((m: MemberRecord) => m.role === 'owner').id;
    for (const res of [await add(viewer.jwt, newEmail(), 'viewer'), await patch(viewer.jwt, viewer.member.id, 'admin'), await remove(viewer.jwt, ownerId)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'insufficient_role', status: 403 });
    }
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);
    expect((await list(jwt)).json().data.members).toHaveLength(2);
  });

  it.skipIf(skip)('only owners grant or revoke owner: an admin is refused with 403 insufficient_role', async () => {
    const { org, jwt } = await setup();
    const admin = await person(jwt, 'admin');
    const viewer = await person(jwt, 'viewer');
    const ownerId = (await list(jwt)).json().data.members.find((m: MemberRecord) => m.role === 'owner').id;
    const before = await auditRows(h.store, org.org_id);

    const attempts = [
      await add(admin.jwt, newEmail(), 'owner'),
      await patch(admin.jwt, viewer.member.id, 'owner'),
      await patch(admin.jwt, admin.member.id, 'owner'),
      await patch(admin.jwt, ownerId, 'admin'),
      await remove(admin.jwt, ownerId),
    ];
    for (const res of attempts) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('insufficient_role');
    }
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);

    // An admin still manages non-owner roles.
    expect((await patch(admin.jwt, viewer.member.id, 'member')).statusCode).toBe(200);
    expect((await add(admin.jwt, newEmail(), 'admin')).statusCode).toBe(201);

    // An owner may grant owner, and then revoke it again.
    const granted = await patch(jwt, admin.member.id, 'owner');
    expect(granted.statusCode).toBe(200);
    expect(granted.json().data.role).toBe('owner');
    expect((await patch(admin.jwt, ownerId, 'admin')).statusCode).toBe(200);
    const roles = (await list(jwt)).json().data.members.map((m: MemberRecord) => m.role).sort();
    expect(roles.filter((r: string) => r === 'owner')).toHaveLength(1);
  });

  it.skipIf(skip)('the last owner can be neither demoted nor removed (409 conflict); with two owners either may go', async () => {
    const { org, jwt } = await setup();
    const ownerId = (await list(jwt)).json().data.members[0].id as string;
    const before = await auditRows(h.store, org.org_id);

    for (const res of [await patch(jwt, ownerId, 'admin'), await patch(jwt, ownerId, 'viewer'), await remove(jwt, ownerId)]) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('conflict');
    }
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);
    expect((await list(jwt)).json().data.members).toEqual([expect.objectContaining({ id: ownerId, role: 'owner' })]);

    // Setting the same role is a no-op, not a conflict.
    expect((await patch(jwt, ownerId, 'owner')).statusCode).toBe(200);

    const second = await person(jwt, 'owner');
    const demoted = await patch(jwt, ownerId, 'admin');
    expect(demoted.statusCode).toBe(200);
    // Now `second` is the last owner.
    const last = await remove(second.jwt, second.member.id);
    expect(last.statusCode).toBe(409);
    const dropped = await remove(second.jwt, ownerId);
    expect(dropped.statusCode).toBe(200);
    expect((await list(second.jwt)).json().data.members).toEqual([expect.objectContaining({ id: second.member.id, role: 'owner' })]);
  });

  it.skipIf(skip)('a role change takes effect at once on an existing token', async () => {
    const { jwt } = await setup();
    const admin = await person(jwt, 'admin');
    expect((await add(admin.jwt, newEmail(), 'viewer')).statusCode).toBe(201);

    expect((await patch(jwt, admin.member.id, 'viewer')).statusCode).toBe(200);
    const refused = await add(admin.jwt, newEmail(), 'viewer');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_role');
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(admin.jwt) });
    expect(who.json().data.role).toBe('viewer');
    const settings = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(admin.jwt), payload: { duck_facts: true } });
    expect(settings.statusCode).toBe(403);

    expect((await patch(jwt, admin.member.id, 'admin')).statusCode).toBe(200);
    expect((await add(admin.jwt, newEmail(), 'viewer')).statusCode).toBe(201);
  });
});
