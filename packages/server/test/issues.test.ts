// UX issues through the real paths: visits sent to POST /v1/ingest with the publishable key,
// cycles run as of a time with the harness's ManualClock, and everything read back through
// /v1/query/issues and changed through PATCH /v1/manage/issues/{id}. Expected values come from
// DOMAIN.md section 4, the spec and docs/issues.md, worked out by hand next to each check.
// Both dialects.
import { beforeAll, describe, expect, it } from 'vitest';
import { eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { fingerprint, severityOf } from '../src/pipeline/issues.ts';
import { clusterStep } from '../src/pipeline/cluster-step.ts';
import { countingSelectsFrom } from './helpers/query-spy.ts';
import {
  HOUR, MIN, api, cycle, eventsOfType, freshStart, issueRow, ok, outboxEvents, sendVisits, sidOf,
} from './helpers/traffic.ts';

const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('UX issues', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });


  it('clusters at 3 fires from 2 sessions in the last 24 hours, not below', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const key = org.keys.secret;
    const T = S + 24 * HOUR + 20 * MIN;
    h.clock.set(S + 24 * HOUR + 25 * MIN);
    await sendVisits(h, org, prefix, [
      // /a: 2 fires from 2 sessions (one fire short)
      { n: 1, page: '/a', at: T, signals: [{ type: 'rage_click', element: 'button.x' }] },
      { n: 2, page: '/a', at: T + 2000, signals: [{ type: 'rage_click', element: 'button.x' }] },
      // /b: 3 fires from 1 session (one session short)
      { n: 3, page: '/b', at: T + 4000, signals: [1, 2, 3].map(() => ({ type: 'dead_click', element: 'a.y' })) },
      // /c: 3 fires from 2 sessions: exactly at the threshold
      { n: 4, page: '/c', at: T + 6000, signals: [{ type: 'form_restart', element: 'form.z', label: 'Checkout form' }, { type: 'form_restart', element: 'form.z', label: 'Checkout form' }] },
      { n: 5, page: '/c', at: T + 10_000, signals: [{ type: 'form_restart', element: 'form.z', label: 'Checkout form' }] },
      // /d: 3 fires from 3 sessions, but the first is more than 24 hours before the cycle
      { n: 6, page: '/d', at: S + 10 * MIN, signals: [{ type: 'u_turn_navigation', element: 'a.back' }] },
      { n: 7, page: '/d', at: T + 12_000, signals: [{ type: 'u_turn_navigation', element: 'a.back' }] },
      { n: 8, page: '/d', at: T + 14_000, signals: [{ type: 'u_turn_navigation', element: 'a.back' }] },
    ]);
    const C1 = S + 24 * HOUR + 30 * MIN; // window [S + 30 min, C1): /d's first fire is out
    const r1 = await cycle(h, org.site_id, C1);
    expect(r1.status === 'done' && r1.issues).toEqual({ created: 1, updated: 0 });

    const list = await ok(h, key, 'GET', '/v1/query/issues');
    expect(list.total).toBe(1);
    const issue = list.issues[0];
    expect(issue).toMatchObject({
      title: "Form restarts on 'Checkout form' (form.z) on /c", page: '/c', element_selector: 'form.z', type: 'form_restart',
      status: 'open', signal_count: 3, session_count: 2, user_count: 2, assigned_to: null, resolved_at: null,
      first_seen_at: iso(T + 7000), last_seen_at: iso(T + 11_000), created_at: iso(C1), severity_source: 'computed',
    });
    expect(issue.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Severity: tier 2 form_restart 20 + 16 / 40 x 10 = 24; reach 2 of the page's 2 users x 25 = 25;
    // volume log10(4) / log10(1001) x 15 = 3.00986; ordinary page 0; no conversions 0;
    // all 3 signals in the last 48 hours x 5 = 5. 57.00986 -> 57, high.
    expect(issue.severity_score).toBe(57);
    expect(issue.severity).toBe('high');
    const created = await eventsOfType(h, org.site_id, 'issue.created');
    expect(created).toHaveLength(1);
    // DOMAIN §8: the event carries the full record, as the query API returns it (the list's
    // rows add only their sparkline: daily_counts and its window).
    const { daily_counts: daily, window_from: _from, window_to: _to, ...record } = issue;
    expect(daily).toEqual([...Array(13).fill(0), 3]);
    expect(created[0].data).toEqual(record);

    // One more fire on /a from a third session brings it to the threshold.
    h.clock.set(C1 + 10 * MIN);
    await sendVisits(h, org, prefix, [{ n: 9, page: '/a', at: C1 + 5 * MIN, signals: [{ type: 'rage_click', element: 'button.x' }] }]);
    const r2 = await cycle(h, org.site_id, C1 + 15 * MIN);
    expect(r2.status === 'done' && r2.issues).toEqual({ created: 1, updated: 1 });
    const after = await ok(h, key, 'GET', '/v1/query/issues');
    expect(after.total).toBe(2);
    expect(after.issues.map((i: { page: string }) => i.page).sort()).toEqual(['/a', '/c']);
    expect(after.issues.find((i: { page: string }) => i.page === '/a')).toMatchObject({ signal_count: 3, session_count: 3, type: 'rage_click', element_selector: 'button.x' });
  });

  it('a stable fingerprint finds the same issue every cycle, whatever its status; signals count once', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const key = org.keys.secret;
    const pay = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, [
      { n: 1, page: '/checkout', at: S + HOUR, signals: [pay, pay] },
      { n: 2, page: '/checkout', at: S + HOUR + 5000, signals: [pay] },
    ]);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);
    const first = await issueRow(h, org.site_id);
    expect(first.fingerprint).toBe(fingerprint(org.site_id, '/checkout', 'rage_click', 'button.pay'));
    expect(first.title).toBe("Rage clicks on 'Pay now' (button.pay) on /checkout");
    expect(first.signal_count).toBe(3);

    h.clock.set(S + HOUR + 25 * MIN);
    await sendVisits(h, org, prefix, [{ n: 3, page: '/checkout', at: S + HOUR + 20 * MIN, signals: [pay, pay] }]);
    const C2 = S + HOUR + 30 * MIN;
    await cycle(h, org.site_id, C2);
    await cycle(h, org.site_id, C2); // the same cycle again changes nothing
    await cycle(h, org.site_id, C2 + 15 * MIN); // a cycle with nothing new counts nothing
    let row = await issueRow(h, org.site_id);
    expect(row.id).toBe(first.id);
    expect(row.fingerprint).toBe(first.fingerprint);
    // 3 + 2 signals; 3 sessions and 3 users in the last 24 hours; last seen at n3's 2nd signal.
    expect(row).toMatchObject({ signal_count: 5, session_count: 3, user_count: 3, last_seen_at: S + HOUR + 20 * MIN + 2000, first_seen_at: S + HOUR + 1000 });

    // Resolved and ignored issues are updated too, never duplicated.
    h.clock.set(S + 2 * HOUR);
    await ok(h, key, 'PATCH', `/v1/manage/issues/${first.id}`, { status: 'resolved' });
    h.clock.set(S + 2 * HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, [{ n: 4, page: '/checkout', at: S + 2 * HOUR + 5 * MIN, signals: [pay] }]);
    await cycle(h, org.site_id, S + 2 * HOUR + 15 * MIN);
    row = await issueRow(h, org.site_id);
    expect(row).toMatchObject({ id: first.id, status: 'resolved', signal_count: 6 });

    h.clock.set(S + 2 * HOUR + 20 * MIN);
    await ok(h, key, 'PATCH', `/v1/manage/issues/${first.id}`, { status: 'ignored' });
    h.clock.set(S + 2 * HOUR + 28 * MIN);
    await sendVisits(h, org, prefix, [{ n: 5, page: '/checkout', at: S + 2 * HOUR + 25 * MIN, signals: [pay] }]);
    await cycle(h, org.site_id, S + 2 * HOUR + 30 * MIN);
    row = await issueRow(h, org.site_id);
    expect(row).toMatchObject({ id: first.id, status: 'ignored', signal_count: 7, session_count: 5 });
    expect((await ok(h, key, 'GET', '/v1/query/issues')).total).toBe(1);
    expect(await eventsOfType(h, org.site_id, 'issue.created')).toHaveLength(1);
  });

  it('evidence links the issue to its own signals and sessions, once each', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const key = org.keys.secret;
    const sig = { type: 'dead_click', element: 'a.plan', label: 'Plans' };
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, [
      { n: 1, page: '/pricing', at: S + HOUR, signals: [sig, sig] },
      { n: 2, page: '/pricing', at: S + HOUR + 5000, signals: [sig] },
      // Another element on the same page: not evidence of this issue.
      { n: 3, page: '/pricing', at: S + HOUR + 9000, signals: [{ type: 'dead_click', element: 'a.other' }] },
    ]);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);
    await cycle(h, org.site_id, S + HOUR + 30 * MIN); // the same signals again: no duplicate links
    const issue = await issueRow(h, org.site_id);
    const own = await h.store.db.selectFrom('signals').select(['id', 'sid', 'occurred_at']).where('site_id', '=', org.site_id)
      .where('element', '=', 'a.plan').orderBy('occurred_at', 'desc').execute();
    expect(own).toHaveLength(3);

    const detail = await ok(h, key, 'GET', `/v1/query/issues/${issue.id}`);
    expect(detail.id).toBe(issue.id);
    expect(detail.evidence).toEqual(own.map((s) => expect.objectContaining({ signal_id: s.id, session_id: s.sid, occurred_at: iso(s.occurred_at), label: 'Plans' })));
    expect(detail.linked_sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual([sidOf(prefix, 1), sidOf(prefix, 2)].sort());
    expect(detail.linked_sessions[0]).toMatchObject({ entry_page: '/pricing', converted: false });
    expect(detail.verifications).toEqual([]);
    expect(detail.deploy_correlation).toBeNull();
    expect(detail.activity).toEqual([expect.objectContaining({ kind: 'created', actor: 'mallard', to_status: 'open' })]);
  });

  it('evidence per cycle is each issue\'s 10 newest signals in the window, never another group\'s', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const many = { type: 'dead_click', element: 'a.plan', label: 'Plans' };
    const few = { type: 'rage_click', element: 'a.plan', label: 'Plans' };
    h.clock.set(S + HOUR + 10 * MIN);
    // 12 fires of one group (8 + 4 sessions' worth, a second apart), 3 of another on the same element.
    await sendVisits(h, org, prefix, [
      { n: 1, page: '/pricing', at: S + HOUR, signals: [...Array(8).fill(many), few, few] },
      { n: 2, page: '/pricing', at: S + HOUR + 30_000, signals: [...Array(4).fill(many), few] },
    ]);
    const C = S + HOUR + 15 * MIN;
    await cycle(h, org.site_id, C);
    const linked = async (type: string) => (await h.store.db.selectFrom('issue_evidence').innerJoin('ux_issues', 'ux_issues.id', 'issue_evidence.issue_id')
      .select('issue_evidence.signal_id').where('ux_issues.site_id', '=', org.site_id).where('ux_issues.type', '=', type).execute()).map((r) => r.signal_id).sort();
    const own = async (type: string) => (await h.store.db.selectFrom('signals').select('id').where('site_id', '=', org.site_id)
      .where('signal_type', '=', type).orderBy('occurred_at', 'desc').execute()).map((r) => r.id);
    const manyIds = await own('dead_click');
    expect(manyIds).toHaveLength(12);
    // The 10 newest of the 12 (the first visit's first two fires are left out)...
    expect(await linked('dead_click')).toEqual(manyIds.slice(0, 10).sort());
    // ...and all 3 of the other group.
    expect(await linked('rage_click')).toEqual((await own('rage_click')).sort());
  });

  it('clustering reads the signals a fixed number of times, however many groups the window holds', async () => {
    // One query per group read the whole window again for each group: on SQLite (no planner
    // statistics) a busy site's cycle took minutes. The count, not the time, is what is checked.
    const signalReads = async (groups: number) => {
      const { org, start: S, prefix } = await freshStart(h);
      h.clock.set(S + HOUR + 10 * MIN);
      const signals = Array.from({ length: groups }, (_, i) => ({ type: 'dead_click', element: `a.link-${i}` }));
      // Every group: 3 fires from 2 sessions, a cluster.
      await sendVisits(h, org, prefix, [
        { n: 1, page: '/pricing', at: S + HOUR, signals: [...signals, ...signals] },
        { n: 2, page: '/pricing', at: S + HOUR + 5 * MIN, signals },
      ]);
      const counting = countingSelectsFrom(h.store.db, 'signals');
      const result = await clusterStep(counting.db, org.site_id, S + HOUR + 15 * MIN);
      expect(result).toEqual({ created: groups, updated: 0 });
      return counting.counter.selects;
    };
    expect(await signalReads(12)).toBe(await signalReads(1));
  });

  it('lists issues by severity then last seen, with status filter and paging; detail errors and tenancy', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const key = org.keys.secret;
    // A deploy 30 minutes before the friction appears: the detail correlates it.
    h.clock.set(S + 30 * MIN);
    const deploy = await ok(h, key, 'POST', '/v1/manage/deploys', { version: '1.4.0' });
    const three = (n: number, page: string, at: number) => [
      { n, page, at, signals: [{ type: 'dead_click', element: 'a.link' }, { type: 'dead_click', element: 'a.link' }] },
      { n: n + 1, page, at: at + 1000, signals: [{ type: 'dead_click', element: 'a.link' }] },
    ];
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, [...three(1, '/p1', S + HOUR), ...three(3, '/p2', S + HOUR + MIN), ...three(5, '/p3', S + HOUR + 2 * MIN)]);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);
    const ids: Record<string, string> = {};
    for (const page of ['/p1', '/p2', '/p3']) ids[page] = (await issueRow(h, org.site_id, page)).id;
    h.clock.set(S + HOUR + 20 * MIN);
    await ok(h, key, 'PATCH', `/v1/manage/issues/${ids['/p1']}`, { severity: 'low', status: 'triaged' });
    await ok(h, key, 'PATCH', `/v1/manage/issues/${ids['/p2']}`, { severity: 'high' });
    await ok(h, key, 'PATCH', `/v1/manage/issues/${ids['/p3']}`, { severity: 'high', status: 'in_progress' });

    // high before low; between the two highs, /p3 was seen last.
    const all = await ok(h, key, 'GET', '/v1/query/issues');
    expect(all.issues.map((i: { id: string }) => i.id)).toEqual([ids['/p3'], ids['/p2'], ids['/p1']]);
    expect(all).toMatchObject({ total: 3, offset: 0, limit: 50 });
    const page = await ok(h, key, 'GET', '/v1/query/issues?limit=2&offset=1');
    expect(page.issues.map((i: { id: string }) => i.id)).toEqual([ids['/p2'], ids['/p1']]);
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 2 });
    const triaged = await ok(h, key, 'GET', '/v1/query/issues?status=triaged');
    expect(triaged.issues.map((i: { id: string }) => i.id)).toEqual([ids['/p1']]);
    expect(triaged.total).toBe(1);
    expect((await ok(h, key, 'GET', '/v1/query/issues?status=open')).issues.map((i: { id: string }) => i.id)).toEqual([ids['/p2']]);
    expect(await ok(h, key, 'GET', '/v1/query/issues?status=regressed')).toMatchObject({ issues: [], total: 0 });

    let res = await api(h, key, 'GET', '/v1/query/issues?status=closed');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_status');
    res = await api(h, key, 'GET', '/v1/query/issues?limit=0');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_input');

    const detail = await ok(h, key, 'GET', `/v1/query/issues/${ids['/p3']}`);
    expect(detail.deploy_correlation).toMatchObject({ deploy_id: deploy.id, version: '1.4.0', environment: 'production' });
    expect(detail.activity.map((a: { kind: string }) => a.kind).sort()).toEqual(['created', 'severity', 'status']);

    res = await api(h, key, 'GET', '/v1/query/issues/not-a-uuid');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_uuid');
    res = await api(h, key, 'GET', '/v1/query/issues/0190b1d2-7c3e-7a4b-8c5d-123456789abc');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');

    // Another org's credentials never see or change this issue.
    const other = await h.org('Other');
    res = await api(h, other.keys.secret, 'GET', `/v1/query/issues/${ids['/p3']}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    res = await api(h, other.keys.secret, 'PATCH', `/v1/manage/issues/${ids['/p3']}`, { status: 'ignored' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect((await ok(h, other.keys.secret, 'GET', '/v1/query/issues')).total).toBe(0);
    expect((await issueRow(h, org.site_id, '/p3')).status).toBe('in_progress');
  });

  describe('PATCH /v1/manage/issues/{issue_id}', () => {
    let org: Org;
    let key: string;
    let jwt: string;
    let id: string;
    let S: number;
    let prefix: string;
    const url = () => `/v1/manage/issues/${id}`;
    const nonCreated = async () => (await outboxEvents(h, org.site_id)).filter((e) => e.type !== 'issue.created');

    beforeAll(async () => {
      ({ org, start: S, prefix } = await freshStart(h));
      key = org.keys.secret;
      jwt = await h.login(org.email, org.password);
      h.clock.set(S + HOUR + 10 * MIN);
      const sig = { type: 'disabled_element_attempt', element: 'button.next', label: 'Next' };
      await sendVisits(h, org, prefix, [
        { n: 1, page: '/setup', at: S + HOUR, signals: [sig, sig] },
        { n: 2, page: '/setup', at: S + HOUR + 3000, signals: [sig] },
      ]);
      await cycle(h, org.site_id, S + HOUR + 15 * MIN);
      h.clock.set(S + HOUR + 15 * MIN);
      id = (await issueRow(h, org.site_id)).id;
    }, 120_000);

    it('sets every settable status; each change queues exactly one event', async () => {
      const expected: string[] = [];
      let previous = 'open';
      for (const status of ['triaged', 'in_progress', 'resolved', 'verified', 'ignored', 'open'] as const) {
        h.clock.advance(MIN);
        const now = h.clock.now();
        const record = await ok(h, key, 'PATCH', url(), { status });
        expect(record).toMatchObject({ id, status, status_changed_at: iso(now), updated_at: iso(now) });
        if (status === 'resolved') expect(record.resolved_at).toBe(iso(now));
        expect((await ok(h, key, 'GET', `/v1/query/issues/${id}`)).status).toBe(status);
        const row = await issueRow(h, org.site_id);
        if (status === 'ignored') expect(row.ignored_at).toBe(now);
        expected.push(status === 'verified' ? 'issue.verified' : 'issue.updated');
        const events = await nonCreated();
        expect(events.map((e) => e.type)).toEqual(expected);
        expect(events[events.length - 1].data).toMatchObject({ id, status });
        const detail = await ok(h, key, 'GET', `/v1/query/issues/${id}`);
        expect(detail.activity[0]).toMatchObject({ kind: 'status', from_status: previous, to_status: status, created_at: iso(now), actor: expect.stringMatching(/^key:/) });
        previous = status;
      }
      // Setting the status it already has changes nothing and sends nothing.
      await ok(h, key, 'PATCH', url(), { status: 'open' });
      expect(await nonCreated()).toHaveLength(expected.length);
    });

    it('rejects every unsettable status with 400 invalid_status and changes nothing', async () => {
      const before = await issueRow(h, org.site_id);
      const events = (await nonCreated()).length;
      for (const status of ['regressed', 'closed', 'Resolved', 'RESOLVED', '', 'done', 42, null, ['open'], { value: 'open' }]) {
        const res = await api(h, key, 'PATCH', url(), { status });
        expect(res.statusCode, JSON.stringify(status)).toBe(400);
        expect(res.json()).toMatchObject({ data: null, error: { code: 'invalid_status', status: 400 } });
      }
      // Even beside a valid field, the whole PATCH is refused.
      const res = await api(h, key, 'PATCH', url(), { status: 'regressed', note: 'should not be kept' });
      expect(res.json().error.code).toBe('invalid_status');
      expect(await issueRow(h, org.site_id)).toEqual(before);
      expect(await nonCreated()).toHaveLength(events);
    });

    it('records notes and assignment with author and time; partial updates leave the rest alone', async () => {
      h.clock.advance(MIN);
      const t1 = h.clock.now();
      const before = await issueRow(h, org.site_id);
      let record = await ok(h, jwt, 'PATCH', url(), { note: 'Reproduced on Safari', assigned_to: 'dev@example.com' });
      expect(record).toMatchObject({ assigned_to: 'dev@example.com', status: before.status, severity: before.severity, updated_at: iso(t1) });
      let detail = await ok(h, key, 'GET', `/v1/query/issues/${id}`);
      const recent = detail.activity.filter((a: { created_at: string }) => a.created_at === iso(t1));
      expect(recent).toEqual(expect.arrayContaining([
        expect.objectContaining({ kind: 'note', message: 'Reproduced on Safari', actor: org.email }),
        expect.objectContaining({ kind: 'assignment', message: 'Assigned to dev@example.com', actor: org.email }),
      ]));
      expect(recent).toHaveLength(2);

      // Severity only: status and assignee stay; a manual severity is marked so.
      h.clock.advance(MIN);
      record = await ok(h, key, 'PATCH', url(), { severity: 'critical' });
      expect(record).toMatchObject({ severity: 'critical', severity_source: 'manual', status: before.status, assigned_to: 'dev@example.com' });
      // Note only: everything else stays.
      h.clock.advance(MIN);
      const t3 = h.clock.now();
      record = await ok(h, key, 'PATCH', url(), { note: 'Fix in review' });
      expect(record).toMatchObject({ severity: 'critical', status: before.status, assigned_to: 'dev@example.com', title: before.title, signal_count: before.signal_count });
      detail = await ok(h, key, 'GET', `/v1/query/issues/${id}`);
      expect(detail.activity[0]).toMatchObject({ kind: 'note', message: 'Fix in review', created_at: iso(t3), actor: expect.stringMatching(/^key:/) });

      // A manual severity sticks through cycles; null returns to the computed one.
      h.clock.set(S + HOUR + 40 * MIN);
      await sendVisits(h, org, prefix, [{ n: 3, page: '/setup', at: S + HOUR + 35 * MIN, signals: [{ type: 'disabled_element_attempt', element: 'button.next' }] }]);
      await cycle(h, org.site_id, S + HOUR + 45 * MIN);
      const row = await issueRow(h, org.site_id);
      expect(row.signal_count).toBe(4);
      expect(row.severity).toBe('critical');
      expect(row.severity).not.toBe(severityOf(row.severity_score));
      record = await ok(h, key, 'PATCH', url(), { severity: null });
      expect(record).toMatchObject({ severity: severityOf(row.severity_score), severity_source: 'computed', assigned_to: 'dev@example.com' });

      record = await ok(h, key, 'PATCH', url(), { assigned_to: null });
      expect(record).toMatchObject({ assigned_to: null, status: before.status });
    });

    it('empty_body, invalid_json, unknown fields and bad values', async () => {
      const before = await issueRow(h, org.site_id);
      let res = await h.app.inject({ method: 'PATCH', url: url(), headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ data: null, error: { code: 'empty_body', status: 400 } });
      res = await h.app.inject({ method: 'PATCH', url: url(), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{"status": "open"' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_json');
      res = await api(h, key, 'PATCH', url(), { priority: 1 });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'priority' } });
      for (const body of [{ severity: 'urgent' }, { note: '' }, { assigned_to: 'x'.repeat(255) }]) {
        res = await api(h, key, 'PATCH', url(), body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error.code).toBe('invalid_input');
      }
      res = await api(h, key, 'PATCH', '/v1/manage/issues/12345', { status: 'open' });
      expect(res.json().error.code).toBe('invalid_uuid');
      res = await api(h, key, 'PATCH', '/v1/manage/issues/0190b1d2-7c3e-7a4b-8c5d-123456789abc', { status: 'open' });
      expect(res.statusCode).toBe(404);
      expect(await issueRow(h, org.site_id)).toEqual(before);
    });
  });
});
