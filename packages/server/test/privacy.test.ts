// Data-subject requests: export everything stored about one person (by visitor id or
// user_ref) and erase it, by API (admins of the org) and by CLI; aggregates stay, another
// person is untouched, erasing twice is fine, and another org can never reach it. Both dialects.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, expect, it, vi } from 'vitest';
import { bearer, eachDialect, TEST_SECRET, useHarness, type Org } from './helpers/harness.ts';
import { cycle } from './helpers/traffic.ts';

// Each test runs the CLI several times, a few seconds a start on a busy two-core machine.
vi.setConfig({ testTimeout: 180_000 });

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const hex = (c: string, n = 32) => c.repeat(n).slice(0, n);

eachDialect('privacy requests', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let a: Org;
  let b: Org;
  let admin: string;
  // Ana: two visits on one device, identified in the second; Bo: another person.
  const ANA_VID = hex('a1');
  const ANA_SIDS = [hex('a2'), hex('a3')];
  const BO_VID = hex('b1');
  const BO_SIDS = [hex('b2'), hex('b3')];
  const USER_REF = 'customer-4711';

  async function visit(org: Org, sid: string, vid: string, extra: Record<string, unknown>[] = []) {
    const now = h.clock.now();
    const events = [
      { type: 'pageview', ts: now - 60_000, page: '/checkout' },
      ...[1, 2, 3].map((i) => ({ type: 'signal', ts: now - 60_000 + i * 1000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay', confidence: 1, hx: 10, hy: 20, vx: 30, vy: 40 })),
      ...extra,
    ];
    const res = await h.app.inject({ method: 'POST', url: '/v1/ingest', payload: { key: org.keys.publishable, sid, vid, url: 'https://shop.example/checkout', ts: now, events } });
    expect(res.statusCode, res.body).toBe(202);
  }

  const count = async (table: 'sessions' | 'events' | 'signals', sids: string[]) =>
    Number((await h.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', a.site_id).where('sid', 'in', sids).executeTakeFirstOrThrow()).n);
  const evidence = async (sids: string[]) =>
    Number((await h.store.db.selectFrom('issue_evidence').select((eb) => eb.fn.countAll().as('n')).where('sid', 'in', sids).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    a = await h.org('Privacy A');
    b = await h.org('Privacy B');
    admin = (await h.user(a, 'admin')).jwt;
    await visit(a, ANA_SIDS[0], ANA_VID);
    await visit(a, ANA_SIDS[1], ANA_VID, [{ type: 'identify', ts: h.clock.now() - 1000, user_ref: USER_REF }]);
    for (const sid of BO_SIDS) await visit(a, sid, BO_VID);
    await cycle(h, a.site_id, h.clock.now());
    expect(await evidence([...ANA_SIDS, ...BO_SIDS]), 'the pipeline linked the sessions to an issue').toBeGreaterThan(0);
  });

  const exportBy = (query: string, token = admin) => h.app.inject({ method: 'GET', url: `/v1/manage/privacy/export?site_id=${a.site_id}&${query}`, headers: bearer(token) });
  const eraseBy = (query: string, token = admin, site = a.site_id) => h.app.inject({ method: 'DELETE', url: `/v1/manage/privacy/subject?site_id=${site}&${query}`, headers: bearer(token) });

  it.skipIf(skip)('export by visitor_id: every session, event and signal of that person, and nothing of anyone else', async () => {
    const res = await exportBy(`visitor_id=${ANA_VID}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.error).toBeNull();
    expect(body.data.site_id).toBe(a.site_id);
    expect(body.data.sessions.map((s: { sid: string }) => s.sid).sort()).toEqual(ANA_SIDS);
    expect(body.data.events).toHaveLength(await count('events', ANA_SIDS));
    expect(body.data.signals).toHaveLength(await count('signals', ANA_SIDS));
    expect(body.data.events.every((e: { sid: string }) => ANA_SIDS.includes(e.sid))).toBe(true);
    expect(res.body).not.toContain(BO_VID);
    expect(body.data.events[0].occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it.skipIf(skip)('export by user_ref finds the identified session and the same visitor\'s other visits', async () => {
    const res = await exportBy(`user_ref=${USER_REF}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.sessions.map((s: { sid: string }) => s.sid).sort()).toEqual(ANA_SIDS);
    const unknown = await exportBy('user_ref=nobody');
    expect(unknown.json().data).toMatchObject({ sessions: [], events: [], signals: [] });
  });

  it.skipIf(skip)('admins only with a user token; another org gets 404; exactly one identifier', async () => {
    const member = (await h.user(a, 'member')).jwt;
    expect((await exportBy(`visitor_id=${ANA_VID}`, member)).json().error.code).toBe('insufficient_role');
    expect((await eraseBy(`visitor_id=${ANA_VID}`, member)).json().error.code).toBe('insufficient_role');
    expect((await exportBy(`visitor_id=${ANA_VID}`, a.keys.secret)).json().error.code).toBe('jwt_required');
    const other = await exportBy(`visitor_id=${ANA_VID}`, b.jwt);
    expect(other.statusCode).toBe(404);
    const otherErase = await eraseBy(`visitor_id=${ANA_VID}`, b.jwt);
    expect(otherErase.statusCode).toBe(404);
    // B erasing "its own" subject with that visitor id touches nothing of A.
    expect((await eraseBy(`visitor_id=${ANA_VID}`, b.jwt, b.site_id)).json().data.erased).toEqual({ sessions: 0, events: 0, signals: 0, issue_evidence: 0, clips: 0 });
    expect(await count('sessions', ANA_SIDS)).toBe(2);
    for (const query of ['', `visitor_id=${ANA_VID}&user_ref=${USER_REF}`]) {
      const res = await eraseBy(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
  });

  it.skipIf(skip)('erase by user_ref removes the person\'s sessions, events, signals and issue evidence; aggregates and others stay; twice is fine', async () => {
    const issuesBefore = await h.store.db.selectFrom('ux_issues').select(['id', 'signal_count', 'session_count']).where('site_id', '=', a.site_id).execute();
    const expected = {
      sessions: await count('sessions', ANA_SIDS), events: await count('events', ANA_SIDS),
      signals: await count('signals', ANA_SIDS), issue_evidence: await evidence(ANA_SIDS), clips: 0,
    };
    const boBefore = { events: await count('events', BO_SIDS), evidence: await evidence(BO_SIDS) };
    const res = await eraseBy(`user_ref=${USER_REF}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ erased: expected, storage: expect.objectContaining({ overwritten: name === 'sqlite' }) });
    for (const table of ['sessions', 'events', 'signals'] as const) expect(await count(table, ANA_SIDS), table).toBe(0);
    expect(await evidence(ANA_SIDS)).toBe(0);
    expect({ events: await count('events', BO_SIDS), evidence: await evidence(BO_SIDS) }).toEqual(boBefore);
    // The issue and its counts name no one: they stay as computed.
    expect(await h.store.db.selectFrom('ux_issues').select(['id', 'signal_count', 'session_count']).where('site_id', '=', a.site_id).execute()).toEqual(issuesBefore);
    // The issue's linked sessions no longer list Ana's.
    const issue = await h.app.inject({ method: 'GET', url: `/v1/query/issues/${issuesBefore[0].id}?site_id=${a.site_id}`, headers: bearer(a.keys.secret) });
    for (const sid of ANA_SIDS) expect(issue.body).not.toContain(sid);

    const again = await eraseBy(`visitor_id=${ANA_VID}`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.erased).toEqual({ sessions: 0, events: 0, signals: 0, issue_evidence: 0, clips: 0 });
  });

  it.skipIf(skip)('every request is audited with a keyed hash of the subject, never the identifier itself', async () => {
    const rows = await h.store.db.selectFrom('audit_log').selectAll().where('org_id', '=', a.org_id).where('action', 'like', 'privacy.%').execute();
    expect(rows.map((r) => r.action).sort()).toEqual(['privacy.erased', 'privacy.erased', 'privacy.exported', 'privacy.exported', 'privacy.exported']);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(ANA_VID);
    expect(text).not.toContain(USER_REF);
    expect(JSON.parse(rows.find((r) => r.action === 'privacy.erased')!.details!)).toMatchObject({ by: 'user_ref', subject_hash: expect.stringMatching(/^[0-9a-f]{16}$/), sessions: 2 });
  });

  it.skipIf(skip)('the CLI exports and erases the same way (Bo, by visitor id)', async () => {
    const env = { PATH: process.env.PATH ?? '', MALLARD_SECRET: TEST_SECRET, DATABASE_URL: h.storeUrl, LOG_LEVEL: 'silent' };
    const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: mkdtempSync(join(tmpdir(), 'mallard-privacy-')), env, encoding: 'utf8', timeout: 60_000 });
    const exported = run(['privacy', 'export', '--site', a.site_id, '--visitor', BO_VID]);
    expect(exported.status, exported.stderr).toBe(0);
    const data = JSON.parse(exported.stdout).data;
    expect(data.sessions.map((s: { sid: string }) => s.sid).sort()).toEqual(BO_SIDS);
    const erased = run(['privacy', 'erase', '--site', a.site_id, '--visitor', BO_VID]);
    expect(erased.status, erased.stderr).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ erased: { sessions: 2 } });
    expect(await count('events', BO_SIDS)).toBe(0);
    const bad = run(['privacy', 'erase', '--site', a.site_id]);
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe('mallard: give exactly one of --visitor and --user-ref');
  });
});
