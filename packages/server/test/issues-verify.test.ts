// The lifecycle the engine drives (DOMAIN.md section 4): verification of resolved issues after
// a production deploy (or against the resolution itself), regression, and ignored issues that
// never regress or alert. Traffic goes through POST /v1/ingest; cycles run as of a time.
//
// Every scenario starts the same way (times from S, a UTC midnight): at S+1h, `before` users
// view /checkout and the first `beforeSignals` of them rage-click button.pay once each; the
// cycle at S+1h45 makes the issue; it is resolved by PATCH at S+2h. The before-rate is then
// beforeSignals / before signals per active user (the 7 days before resolution hold only
// that traffic). Both dialects.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { runCycle } from '../src/pipeline/cycle.ts';
import { eachDialect, useHarness } from './helpers/harness.ts';
import {
  HOUR, MIN, cycle, eventsOfType, freshStart, issueRow, ok, sendVisits, visits, type Org, type SignalSpec,
} from './helpers/traffic.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const PAY: SignalSpec = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };

interface Resolved { org: Org; key: string; S: number; prefix: string; id: string; resolvedAt: number }

eachDialect('issue verification and regression', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });


  async function resolvedIssue(before: number, beforeSignals: number): Promise<Resolved> {
    const { org, start: S, prefix } = await freshStart(h);
    h.clock.set(S + HOUR + 30 * MIN);
    await sendVisits(h, org, prefix, visits(1, before, '/checkout', S + HOUR, PAY, beforeSignals));
    h.clock.set(S + HOUR + 45 * MIN);
    await cycle(h, org.site_id, S + HOUR + 45 * MIN);
    const id = (await issueRow(h, org.site_id)).id;
    h.clock.set(S + 2 * HOUR);
    const record = await ok(h, org.keys.secret, 'PATCH', `/v1/manage/issues/${id}`, { status: 'resolved' });
    expect(record.resolved_at).toBe(iso(S + 2 * HOUR));
    return { org, key: org.keys.secret, S, prefix, id, resolvedAt: S + 2 * HOUR };
  }

  const detail = (r: Resolved) => ok(h, r.key, 'GET', `/v1/query/issues/${r.id}`);
  const status = async (r: Resolved) => (await issueRow(h, r.org.site_id)).status;
  const lifecycleEvents = async (r: Resolved) => ({
    verified: (await eventsOfType(h, r.org.site_id, 'issue.verified')).length,
    regressed: (await eventsOfType(h, r.org.site_id, 'issue.regressed')).length,
  });

  /** Resolved with before-rate 1.0 (10 users, 10 fires); deploy 2.0.0 at S+3h; `after` users from S+3h01 of whom `k` rage-click; one cycle at S+4h. */
  async function afterDeploy(after: number, k: number) {
    const r = await resolvedIssue(10, 10);
    h.clock.set(r.S + 3 * HOUR);
    const deploy = await ok(h, r.key, 'POST', '/v1/manage/deploys', { version: '2.0.0' });
    const pending = (await detail(r)).verifications;
    expect(pending).toEqual([expect.objectContaining({ deploy_id: deploy.id, deploy_version: '2.0.0', result: 'pending', before_count: 10, before_rate: 1, started_at: iso(r.S + 3 * HOUR), decided_at: null })]);
    h.clock.set(r.S + 4 * HOUR);
    await sendVisits(h, r.org, r.prefix, visits(11, after, '/checkout', r.S + 3 * HOUR + MIN, PAY, k));
    await cycle(h, r.org.site_id, r.S + 4 * HOUR);
    return { r, deploy };
  }

  it('after a deploy, a drop to 30 % of the before-rate is verified, with the record kept', async () => {
    // 15 fires / 50 users = 0.30 = 30 % of 1.0: verified.
    const { r, deploy } = await afterDeploy(50, 15);
    expect(await status(r)).toBe('verified');
    const d = await detail(r);
    expect(d.verifications).toEqual([expect.objectContaining({
      deploy_id: deploy.id, deploy_version: '2.0.0', result: 'verified', before_count: 10, before_rate: 1,
      after_count: 15, after_rate: 0.3, active_users_after: 50, started_at: iso(r.S + 3 * HOUR), decided_at: iso(r.S + 4 * HOUR),
    })]);
    expect(d.activity[0]).toMatchObject({ kind: 'status', actor: 'mallard', from_status: 'resolved', to_status: 'verified' });
    expect(await lifecycleEvents(r)).toEqual({ verified: 1, regressed: 0 });
    const [event] = await eventsOfType(h, r.org.site_id, 'issue.verified');
    expect(event.data).toMatchObject({ id: r.id, status: 'verified' });
    // The next cycle (the last 24 hours: 25 fires / 60 users = 0.42 < 0.7) changes nothing.
    h.clock.set(r.S + 4 * HOUR + 15 * MIN);
    await cycle(h, r.org.site_id, r.S + 4 * HOUR + 15 * MIN);
    expect(await status(r)).toBe('verified');
    expect(await lifecycleEvents(r)).toEqual({ verified: 1, regressed: 0 });
  });

  it('after a deploy, 70 % of the before-rate is regressed, with exactly one issue.regressed', async () => {
    // 35 / 50 = 0.70 = 70 % of 1.0.
    const { r } = await afterDeploy(50, 35);
    expect(await status(r)).toBe('regressed');
    expect((await detail(r)).verifications[0]).toMatchObject({ result: 'regressed', after_count: 35, after_rate: 0.7, active_users_after: 50, decided_at: iso(r.S + 4 * HOUR) });
    for (const t of [15, 30]) {
      h.clock.set(r.S + 4 * HOUR + t * MIN);
      await cycle(h, r.org.site_id, r.S + 4 * HOUR + t * MIN);
    }
    expect(await status(r)).toBe('regressed');
    expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 1 });
    const [event] = await eventsOfType(h, r.org.site_id, 'issue.regressed');
    expect(event.data).toMatchObject({ id: r.id, status: 'regressed' });
  });

  it.each([
    [16, 0.32], // just above 30 %
    [34, 0.68], // just below 70 %
  ])('after a deploy, %i fires from 50 users (rate %d) is inconclusive and the issue stays resolved', async (k, rate) => {
    const { r } = await afterDeploy(50, k);
    expect(await status(r)).toBe('resolved');
    expect((await detail(r)).verifications[0]).toMatchObject({ result: 'inconclusive', after_count: k, after_rate: rate, active_users_after: 50, decided_at: iso(r.S + 4 * HOUR) });
    expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 0 });
  });

  it('too little traffic: pending until 48 hours after the deploy, then inconclusive; other environments open nothing', async () => {
    // 20 users with 2 fires after: 0.1 per user, but fewer than 50 users.
    const { r } = await afterDeploy(20, 2);
    h.clock.set(r.S + 4 * HOUR + MIN);
    await ok(h, r.key, 'POST', '/v1/manage/deploys', { version: '2.0.0-rc', environment: 'staging' });
    expect((await detail(r)).verifications).toHaveLength(1);
    expect((await detail(r)).verifications[0]).toMatchObject({ result: 'pending', after_count: 2, active_users_after: 20, decided_at: null });
    h.clock.set(r.S + 50 * HOUR);
    await cycle(h, r.org.site_id, r.S + 50 * HOUR); // 47 hours after the deploy
    expect((await detail(r)).verifications[0]).toMatchObject({ result: 'pending', decided_at: null });
    h.clock.set(r.S + 51 * HOUR);
    await cycle(h, r.org.site_id, r.S + 51 * HOUR); // 48 hours after
    const [record] = (await detail(r)).verifications;
    expect(record).toMatchObject({ result: 'inconclusive', after_count: 2, after_rate: 0.1, active_users_after: 20, decided_at: iso(r.S + 51 * HOUR) });
    expect(await status(r)).toBe('resolved');
    expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 0 });
  });

  it('a 95 % drop on a busy page reaches verified although the residual noise forms a cluster', async () => {
    // Before: 20 users, 20 fires (1.0). After the deploy: 200 users, 10 fires from 10 sessions
    // (0.05, 5 % of before): a cluster by count, but judged by rate.
    const r = await resolvedIssue(20, 20);
    h.clock.set(r.S + 3 * HOUR);
    await ok(h, r.key, 'POST', '/v1/manage/deploys', { version: '3.0.0' });
    h.clock.set(r.S + 4 * HOUR);
    const after = visits(21, 200, '/checkout', r.S + 3 * HOUR + MIN, PAY, 0, 1000);
    for (let i = 0; i < 10; i++) after[i * 20].signals = [PAY];
    await sendVisits(h, r.org, r.prefix, after);
    await cycle(h, r.org.site_id, r.S + 4 * HOUR);
    expect(await status(r)).toBe('verified');
    expect((await detail(r)).verifications[0]).toMatchObject({ result: 'verified', before_count: 20, before_rate: 1, after_count: 10, after_rate: 0.05, active_users_after: 200 });
    // More of the same noise: the last 24 hours hold (20 + 10 + 5) / (20 + 200 + 100) = 0.11 < 0.7.
    h.clock.set(r.S + 4 * HOUR + 10 * MIN);
    const more = visits(221, 100, '/checkout', r.S + 4 * HOUR + MIN, PAY, 0, 1000);
    for (let i = 0; i < 5; i++) more[i * 20].signals = [PAY];
    await sendVisits(h, r.org, r.prefix, more);
    await cycle(h, r.org.site_id, r.S + 4 * HOUR + 15 * MIN);
    expect(await status(r)).toBe('verified');
    expect(await lifecycleEvents(r)).toEqual({ verified: 1, regressed: 0 });
  });

  it('resolve, then new signals, then a cycle: regressed at once, with exactly one issue.regressed', async () => {
    const r = await resolvedIssue(10, 10);
    // Just below: 3 users after resolution, 2 fires (rate 0.67 and only 2 fires): not a recurrence.
    h.clock.set(r.S + 2 * HOUR + 10 * MIN);
    await sendVisits(h, r.org, r.prefix, visits(11, 3, '/checkout', r.S + 2 * HOUR + 5 * MIN, PAY, 2));
    await cycle(h, r.org.site_id, r.S + 2 * HOUR + 15 * MIN);
    expect(await status(r)).toBe('resolved');
    expect((await detail(r)).verifications).toEqual([]);
    // One more user who rage-clicks: 3 fires from 3 sessions over 4 users = 0.75 >= 70 % of 1.0.
    h.clock.set(r.S + 2 * HOUR + 25 * MIN);
    await sendVisits(h, r.org, r.prefix, [{ n: 14, page: '/checkout', at: r.S + 2 * HOUR + 20 * MIN, signals: [PAY] }]);
    await cycle(h, r.org.site_id, r.S + 2 * HOUR + 30 * MIN);
    expect(await status(r)).toBe('regressed');
    const d = await detail(r);
    expect(d.verifications).toEqual([expect.objectContaining({
      deploy_id: null, deploy_version: null, result: 'regressed', before_count: 10, before_rate: 1, after_count: 3,
      after_rate: 0.75, active_users_after: 4, started_at: iso(r.resolvedAt), decided_at: iso(r.S + 2 * HOUR + 30 * MIN),
    })]);
    expect(d.activity[0]).toMatchObject({ kind: 'status', from_status: 'resolved', to_status: 'regressed', actor: 'mallard' });
    for (const t of [45, 60, 24 * 60 + 30]) {
      h.clock.set(r.S + 2 * HOUR + t * MIN);
      await cycle(h, r.org.site_id, r.S + 2 * HOUR + t * MIN);
    }
    expect(await status(r)).toBe('regressed');
    expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 1 });
    const [event] = await eventsOfType(h, r.org.site_id, 'issue.regressed');
    expect(event).toMatchObject({ type: 'issue.regressed', site_id: r.org.site_id, data: { id: r.id, status: 'regressed' } });
    // A person can take it from there (PATCH works from any state).
    expect((await ok(h, r.key, 'PATCH', `/v1/manage/issues/${r.id}`, { status: 'triaged' })).status).toBe('triaged');
  });

  it('a failure while regressing writes neither the record nor the status; the next cycle decides it once', async () => {
    const r = await resolvedIssue(10, 10);
    h.clock.set(r.S + 2 * HOUR + 25 * MIN);
    await sendVisits(h, r.org, r.prefix, visits(11, 4, '/checkout', r.S + 2 * HOUR + 5 * MIN, PAY, 3));
    // The outbox refuses writes, so the status change's transaction fails at its last step.
    if (dialect.name === 'sqlite') {
      await sql`CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'outbox down'); END`.execute(h.store.db);
    } else {
      await sql`CREATE FUNCTION fail_outbox() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'outbox down'; END $$ LANGUAGE plpgsql`.execute(h.store.db);
      await sql`CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION fail_outbox()`.execute(h.store.db);
    }
    try {
      await expect(runCycle(h.store.db, r.org.site_id, r.S + 2 * HOUR + 30 * MIN, { intervalMs: 15 * MIN, clock: h.clock })).rejects.toThrow(/outbox down/);
    } finally {
      await sql`DROP TRIGGER fail_outbox${sql.raw(dialect.name === 'sqlite' ? '' : ' ON outbox')}`.execute(h.store.db);
      if (dialect.name !== 'sqlite') await sql`DROP FUNCTION fail_outbox()`.execute(h.store.db);
      await h.store.db.deleteFrom('pipeline_claims').where('site_id', '=', r.org.site_id).execute();
    }
    expect(await status(r)).toBe('resolved');
    expect((await detail(r)).verifications).toEqual([]);
    h.clock.set(r.S + 2 * HOUR + 45 * MIN);
    await cycle(h, r.org.site_id, r.S + 2 * HOUR + 45 * MIN);
    expect(await status(r)).toBe('regressed');
    expect((await detail(r)).verifications).toEqual([expect.objectContaining({ result: 'regressed', after_count: 3, active_users_after: 4 })]);
    expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 1 });
  });

  it('no deploy within 24 hours: verified against the resolution itself; a verified issue whose friction returns regresses', async () => {
    const r = await resolvedIssue(10, 10);
    // From the resolution on: 50 users, 5 fires (0.1 = 10 % of before).
    h.clock.set(r.S + 2 * HOUR + 15 * MIN);
    await sendVisits(h, r.org, r.prefix, visits(11, 50, '/checkout', r.S + 2 * HOUR + 10 * MIN, PAY, 5));
    await cycle(h, r.org.site_id, r.S + 2 * HOUR + 30 * MIN);
    expect(await status(r)).toBe('resolved'); // no recurrence; the resolution record waits for 24 hours
    expect((await detail(r)).verifications).toEqual([]);
    h.clock.set(r.S + 26 * HOUR + 15 * MIN);
    await cycle(h, r.org.site_id, r.S + 26 * HOUR + 15 * MIN);
    expect(await status(r)).toBe('verified');
    expect((await detail(r)).verifications).toEqual([expect.objectContaining({
      deploy_id: null, result: 'verified', before_count: 10, before_rate: 1, after_count: 5, after_rate: 0.1, active_users_after: 50,
      started_at: iso(r.resolvedAt), decided_at: iso(r.S + 26 * HOUR + 15 * MIN),
    })]);

    // The friction returns: in the last 24 hours [S+3h15, S+27h15), 4 users and 3 fires from 3
    // sessions = 0.75 >= 70 % of the before-rate.
    h.clock.set(r.S + 27 * HOUR + 10 * MIN);
    await sendVisits(h, r.org, r.prefix, visits(61, 4, '/checkout', r.S + 27 * HOUR, PAY, 3));
    await cycle(h, r.org.site_id, r.S + 27 * HOUR + 15 * MIN);
    expect(await status(r)).toBe('regressed');
    expect(await lifecycleEvents(r)).toEqual({ verified: 1, regressed: 1 });
  });

  it('open issues get a record on each production deploy, for information only', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    h.clock.set(S + HOUR + 30 * MIN);
    await sendVisits(h, org, prefix, visits(1, 10, '/checkout', S + HOUR, PAY, 10));
    h.clock.set(S + HOUR + 45 * MIN);
    await cycle(h, org.site_id, S + HOUR + 45 * MIN);
    const id = (await issueRow(h, org.site_id)).id;
    h.clock.set(S + 2 * HOUR);
    await ok(h, org.keys.secret, 'POST', '/v1/manage/deploys', { version: '4.0.0' });
    h.clock.set(S + 3 * HOUR);
    await sendVisits(h, org, prefix, visits(11, 50, '/checkout', S + 2 * HOUR + MIN, PAY, 0));
    await cycle(h, org.site_id, S + 3 * HOUR);
    // Before-rate over the 7 days before the deploy: 10 / 10; after: 0 of 50 users: verified, for information.
    const d = await ok(h, org.keys.secret, 'GET', `/v1/query/issues/${id}`);
    expect(d.verifications).toEqual([expect.objectContaining({ deploy_version: '4.0.0', result: 'verified', before_rate: 1, after_count: 0, active_users_after: 50 })]);
    expect(d.status).toBe('open');
    expect(await eventsOfType(h, org.site_id, 'issue.verified')).toHaveLength(0);
  });

  describe('ignored issues', () => {
    it('keep counting but never regress, even with a pending verification and recurring friction', async () => {
      const r = await resolvedIssue(10, 10);
      h.clock.set(r.S + 2 * HOUR + 5 * MIN);
      await ok(h, r.key, 'POST', '/v1/manage/deploys', { version: '5.0.0' });
      h.clock.set(r.S + 2 * HOUR + 10 * MIN);
      await ok(h, r.key, 'PATCH', `/v1/manage/issues/${r.id}`, { status: 'ignored' });
      // The friction comes back in full: 10 users, 10 fires (1.0, 100 % of before).
      h.clock.set(r.S + 2 * HOUR + 25 * MIN);
      await sendVisits(h, r.org, r.prefix, visits(11, 10, '/checkout', r.S + 2 * HOUR + 20 * MIN, PAY, 10));
      for (const t of [2 * HOUR + 30 * MIN, 27 * HOUR, 51 * HOUR]) {
        h.clock.set(r.S + t);
        await cycle(h, r.org.site_id, r.S + t);
      }
      // A deploy after it was ignored opens no record for it.
      await ok(h, r.key, 'POST', '/v1/manage/deploys', { version: '5.0.1' });
      const row = await issueRow(h, r.org.site_id);
      expect(row).toMatchObject({ status: 'ignored', signal_count: 20 });
      expect((await detail(r)).verifications).toHaveLength(1);
      expect(await lifecycleEvents(r)).toEqual({ verified: 0, regressed: 0 });
      expect((await eventsOfType(h, r.org.site_id, 'issue.updated')).map((e) => e.data.status)).toEqual(['resolved', 'ignored']);
    });

    it('never cause alerts: their signals leave page scores from the next cycle', async () => {
      const { org, start: S, prefix } = await freshStart(h);
      const key = org.keys.secret;
      const onA = { type: 'rage_click', element: 'button.a' };
      const onB = { type: 'rage_click', element: 'button.b' };
      h.clock.set(S + HOUR + 10 * MIN);
      await sendVisits(h, org, prefix, [...visits(1, 4, '/a', S + HOUR, onA, 4), ...visits(5, 4, '/b', S + HOUR, onB, 4)]);
      await cycle(h, org.site_id, S + HOUR + 15 * MIN);
      const a = await issueRow(h, org.site_id, '/a');
      h.clock.set(S + HOUR + 20 * MIN);
      await ok(h, key, 'PATCH', `/v1/manage/issues/${a.id}`, { status: 'ignored' });
      await ok(h, key, 'POST', '/v1/manage/alert-rules', { name: 'New pages over 10', trigger_type: 'new_page', threshold: 10, channels: ['webhook'] });
      // Both pages get the same friction again: 4 more users, 4 more rage clicks each.
      h.clock.set(S + HOUR + 40 * MIN);
      await sendVisits(h, org, prefix, [...visits(9, 4, '/a', S + HOUR + 35 * MIN, onA, 4), ...visits(13, 4, '/b', S + HOUR + 35 * MIN, onB, 4)]);
      h.clock.set(S + HOUR + 45 * MIN);
      await cycle(h, org.site_id, S + HOUR + 45 * MIN);
      // The window reaches back past the last interval's 4 users to all 8 of each page.
      // /b: 8 users, 8 x 25 = 200, all 8 affected (100 %, x2.5): 200 / 8 x 2.5 = 62.5
      // -> 100 x (1 - e^-6.25) = 99.807 -> 99.8 >= 10, alert. /a: the same without its ignored signals:
      // nothing weighed, nobody affected: 0 < 10 (99.8 too had they counted).
      const scores = await ok(h, key, 'GET', '/v1/query/scores');
      const score = (p: string) => scores.site.pages.find((x: { page: string }) => x.page === p)?.score;
      expect(score('/b')).toBe(99.8);
      expect(score('/a')).toBe(0);
      const alerts = await ok(h, key, 'GET', '/v1/query/alerts');
      expect(alerts.alerts.map((x: { page: string }) => x.page)).toEqual(['/b']);
      expect((await eventsOfType(h, org.site_id, 'alert.fired')).map((e) => e.data.page)).toEqual(['/b']);
      expect(await issueRow(h, org.site_id, '/a')).toMatchObject({ status: 'ignored', signal_count: 8 });
    });
  });
});
