// The audit log records sign-ins (and failures, with the address and never the password),
// sign-outs, invitation redemptions and bulk reads (raw tables, the events export) with their
// actor; a failed sign-in for an unknown email leaves no row and creates nothing. Audit rows
// have their own retention (MALLARD_AUDIT_RETENTION_DAYS), purged by the maintenance run.
// Both dialects.
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, expect, it } from 'vitest';
import { maintain } from '../src/jobs/maintenance.ts';
import { DAY_MS } from '../src/domain/time.ts';
import { auditRows, bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

const silent = { info() {}, warn() {}, error() {}, debug() {} };

eachDialect('audit of sign-ins and bulk reads', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let a: Org;
  let b: Org;

  const login = (email: string, password: string, remoteAddress = '192.0.2.10') =>
    h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, remoteAddress });
  const allRows = async () => h.store.db.selectFrom('audit_log').selectAll().execute();

  beforeAll(async () => {
    a = await h.org('Signin A');
    b = await h.org('Signin B');
  });

  it.skipIf(skip)('a sign-in is recorded in the org signed into, with the address and never the password', async () => {
    h.clock.advance(1000);
    const res = await login(a.email, a.password);
    expect(res.statusCode, res.body).toBe(200);
    const rows = await auditRows(h.store, a.org_id, 'auth.login');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: a.user_id, target_type: 'user', target_id: a.user_id, ip: '192.0.2.10' });
    expect(JSON.parse(rows[0].details!)).toEqual({ email: a.email });
    expect(JSON.stringify(await allRows())).not.toContain(a.password);
    expect(await auditRows(h.store, b.org_id, 'auth.login')).toHaveLength(0);
  });

  it.skipIf(skip)('a failed sign-in of a known user is recorded in every org the user belongs to, without the password tried', async () => {
    const user = await h.user(a, 'member');
    const now = h.clock.now();
    await h.store.db.insertInto('memberships').values({ id: uuidv7(), org_id: b.org_id, user_id: user.userId, role: 'viewer', created_at: now, updated_at: now }).execute();
    const tried = 'not-the-password-7f3a9c';
    h.clock.advance(1000);
    const res = await login(user.email, tried, '198.51.100.23');
    expect(res.statusCode).toBe(401);
    for (const org of [a, b]) {
      const rows = await auditRows(h.store, org.org_id, 'auth.login_failed');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: user.userId, target_id: user.userId, ip: '198.51.100.23' });
      expect(JSON.parse(rows[0].details!)).toEqual({ email: user.email, reason: 'password' });
    }
    expect(JSON.stringify(await allRows())).not.toContain(tried);
  });

  it.skipIf(skip)('a failed sign-in for an unknown email leaves no audit row and creates no user', async () => {
    const before = (await allRows()).length;
    const users = (await h.store.db.selectFrom('users').select('id').execute()).length;
    const res = await login('nobody-here@example.com', 'whatever-password');
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_credentials');
    expect((await allRows()).length).toBe(before);
    expect((await h.store.db.selectFrom('users').select('id').execute()).length).toBe(users);
  });

  it.skipIf(skip)('a sign-out is recorded with the user as actor', async () => {
    const token = (await login(a.email, a.password)).json().data.token as string;
    h.clock.advance(1000);
    const res = await h.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(token), remoteAddress: '192.0.2.11' });
    expect(res.statusCode, res.body).toBe(200);
    const rows = await auditRows(h.store, a.org_id, 'auth.logout');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: a.user_id, target_id: a.user_id, ip: '192.0.2.11' });
  });

  it.skipIf(skip)('redeeming an invitation is recorded in the inviting org, without the token or the password', async () => {
    const invited = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(a.jwt), payload: { email: 'invitee-audit@example.com', role: 'member' } });
    expect(invited.statusCode, invited.body).toBe(201);
    const { user_id: userId, invitation } = invited.json().data as { user_id: string; invitation: { token: string } };
    const password = 'invitee-password-0042';
    const res = await h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation.token, password }, remoteAddress: '192.0.2.12' });
    expect(res.statusCode, res.body).toBe(200);
    const rows = await auditRows(h.store, a.org_id, 'auth.invitation_redeemed');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: userId, target_id: userId, ip: '192.0.2.12' });
    const everything = JSON.stringify(await allRows());
    expect(everything).not.toContain(invitation.token);
    expect(everything).not.toContain(password);
  });

  it.skipIf(skip)('raw-table reads and the events export are recorded with the key or user that read them; a refused read is not', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/raw?table=events&limit=5', headers: bearer(a.keys.secret) });
    expect(res.statusCode, res.body).toBe(200);
    const raw = await auditRows(h.store, a.org_id, 'raw.read');
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatchObject({ actor_type: 'key', site_id: a.site_id, target_type: 'site', target_id: a.site_id });
    expect(raw[0].actor_id).not.toBeNull();
    expect(JSON.parse(raw[0].details!)).toEqual({ table: 'events', offset: 0, limit: 5, rows: 0 });
    // The key's secret is nowhere in the row.
    expect(JSON.stringify(raw[0])).not.toContain(a.keys.secret);

    const bad = await h.app.inject({ method: 'GET', url: '/v1/query/raw?table=users', headers: bearer(a.keys.secret) });
    expect(bad.statusCode).toBe(400);
    expect(await auditRows(h.store, a.org_id, 'raw.read')).toHaveLength(1);

    const csv = await h.app.inject({ method: 'GET', url: `/v1/query/export/events.csv?site_id=${a.site_id}`, headers: bearer(a.jwt) });
    expect(csv.statusCode, csv.body).toBe(200);
    const exported = await auditRows(h.store, a.org_id, 'events.exported');
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatchObject({ actor_type: 'user', actor_id: a.user_id, site_id: a.site_id });
    expect(JSON.parse(exported[0].details!)).toEqual({ from: null, to: null, raw: false });
  });

  it.skipIf(skip)('the maintenance run deletes audit rows older than the audit retention, not younger ones, whatever raw data\'s retention', async () => {
    const now = h.clock.now();
    const row = (id: string, ageDays: number) => ({
      id, org_id: b.org_id, site_id: null, actor_type: 'system', actor_id: null, action: 'test.aged', target_type: 'test',
      target_id: id, details: null, created_at: now - ageDays * DAY_MS, request_id: null, ip: null,
    });
    const [young, old] = [uuidv7(), uuidv7()];
    await h.store.db.insertInto('audit_log').values([row(young, 200), row(old, 400)]).execute();
    await maintain(h.store, h.clock, { rawDays: 90, auditDays: 365 }, silent);
    const left = (await auditRows(h.store, b.org_id, 'test.aged')).map((r) => r.id);
    expect(left).toEqual([young]);
    await maintain(h.store, h.clock, { rawDays: 90, auditDays: 30 }, silent);
    expect(await auditRows(h.store, b.org_id, 'test.aged')).toEqual([]);
    // The sign-ins of a moment ago are younger than any retention.
    expect((await auditRows(h.store, a.org_id, 'auth.login')).length).toBeGreaterThan(0);
  });
});
