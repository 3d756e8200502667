// GET /v1/query/issues, issue 29 item 2: the first_seen and last_seen ranges, and each row's
// daily_counts (14 UTC days, oldest first) with their window_from / window_to, counted from
// signals sent through the real ingest route at known times, next to signals that must not
// count (another element, another type, before the window). Both dialects.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { DAY, MIN, expectInvalid, queryOk, sendImport, type Org } from './helpers/ingest-kit.ts';

const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('issue list fields', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  /** Noon UTC of a day after the clock's: a known time of day. */
  function noon() {
    const at = (Math.floor(h.clock.now() / DAY) + 1) * DAY + 12 * HOUR;
    h.clock.set(at);
    return at;
  }

  async function insertIssue(h: Harness, org: Org, row: Record<string, unknown>) {
    const id = randomUUID();
    const at = h.clock.now();
    await h.store.db.insertInto('ux_issues').values({
      id, site_id: org.site_id, fingerprint: randomUUID(), title: 'Rage clicks', page: '/checkout', element_selector: 'button.pay', element_label: null,
      type: 'rage_click', severity: 'medium', severity_score: 30, severity_manual: null, status: 'open', assigned_to: null, signal_count: 3,
      session_count: 2, user_count: 2, first_seen_at: at - HOUR, last_seen_at: at - HOUR, resolved_at: null, ignored_at: null,
      status_changed_at: at, created_at: at, updated_at: at, ticket_provider: null, ticket_id: null, ticket_url: null,
      users_7d: 2, signal_weight: 25, revenue_at_risk_cents: null, priority: 10, priority_reason: 'medium',
      ...row,
    }).execute();
    return id;
  }

  const list = (org: Org, qs = '') => queryOk(h, org.keys.secret, `/v1/query/issues?${qs}`);
  const titles = async (org: Org, qs: string) => (await list(org, qs)).issues.map((i: { title: string }) => i.title).join(',');

  it('filters by first_seen and last_seen ranges (from inclusive, to exclusive)', async () => {
    const org = await h.org('Seen');
    const T = noon();
    await insertIssue(h, org, { title: 'one', first_seen_at: T - 20 * DAY, last_seen_at: T - HOUR, priority: 30 });
    await insertIssue(h, org, { title: 'two', first_seen_at: T - 5 * DAY, last_seen_at: T - 3 * DAY, priority: 20 });
    await insertIssue(h, org, { title: 'three', first_seen_at: T - 2 * DAY, last_seen_at: T - 2 * DAY + HOUR, priority: 10 });
    const at = (ms: number) => encodeURIComponent(iso(T - ms));
    expect(await titles(org, '')).toBe('one,two,three');
    expect(await titles(org, `first_seen_from=${at(10 * DAY)}`)).toBe('two,three');
    expect(await titles(org, `first_seen_from=${at(5 * DAY)}`)).toBe('two,three');
    expect(await titles(org, `first_seen_to=${at(3 * DAY)}`)).toBe('one,two');
    expect(await titles(org, `first_seen_to=${at(5 * DAY)}`)).toBe('one');
    expect(await titles(org, `first_seen_from=${at(10 * DAY)}&first_seen_to=${at(3 * DAY)}`)).toBe('two');
    expect(await titles(org, `last_seen_from=${at(DAY)}`)).toBe('one');
    expect(await titles(org, `last_seen_to=${at(DAY)}`)).toBe('two,three');
    expect(await titles(org, `last_seen_from=${at(4 * DAY)}&last_seen_to=${at(DAY)}&first_seen_from=${at(3 * DAY)}`)).toBe('three');
    expect((await list(org, `last_seen_from=${at(4 * DAY)}&last_seen_to=${at(DAY)}`)).total).toBe(2);

    await expectInvalid(h, org.keys.secret, '/v1/query/issues?first_seen_from=yesterday', 'first_seen_from');
    await expectInvalid(h, org.keys.secret, `/v1/query/issues?last_seen_to=${at(DAY)}x`, 'last_seen_to');
    await expectInvalid(h, org.keys.secret, `/v1/query/issues?first_seen_from=${at(DAY)}&first_seen_to=${at(2 * DAY)}`, 'first_seen_to');
    await expectInvalid(h, org.keys.secret, `/v1/query/issues?last_seen_from=${at(DAY)}&last_seen_to=${at(DAY)}`, 'last_seen_to');
  });

  it('gives each row its signals per UTC day over 14 days, oldest first, with the window', async () => {
    const org = await h.org('Daily');
    const T = noon();
    const today = T - 12 * HOUR;
    const pay = (ts: number, extra: Record<string, unknown> = {}) => ({ type: 'signal', ts, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', ...extra });
    const sids = ['1', '2', '3'].map((c) => c.repeat(32));
    await sendImport(h, org, sids[0], [
      { type: 'pageview', ts: today - 14 * DAY + 12 * HOUR, page: '/checkout' },
      pay(today - 14 * DAY + 12 * HOUR), // before the window
      pay(today - 13 * DAY), // the window's first instant: day 0
      pay(today - 5 * DAY + 10 * HOUR), pay(today - 5 * DAY + 10 * HOUR + MIN), // day 8
    ]);
    await sendImport(h, org, sids[1], [
      { type: 'pageview', ts: today - MIN, page: '/checkout' },
      pay(today - MIN), // yesterday: day 12
      pay(today + 30 * MIN), pay(T - HOUR), // today: day 13
      pay(T - HOUR, { element: 'button.other' }), pay(T - HOUR, { signal_type: 'dead_click' }), // other issues
    ]);
    const payIssue = await insertIssue(h, org, { title: 'pay', priority: 50, users_7d: 7 });
    await insertIssue(h, org, { title: 'quiet', element_selector: 'button.quiet', priority: 40 });
    const answer = await list(org);
    expect(answer.issues.map((i: { id: string }) => i.id)[0]).toBe(payIssue);
    expect(answer.issues[0]).toMatchObject({
      title: 'pay', users_7d: 7, revenue_at_risk_cents: null,
      daily_counts: [1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 2],
      window_from: iso(today - 13 * DAY), window_to: iso(T),
    });
    expect(answer.issues[1]).toMatchObject({ title: 'quiet', daily_counts: Array(14).fill(0), window_from: iso(today - 13 * DAY), window_to: iso(T) });
    // A day later the window moves by a day: the first signal drops out, today's become yesterday's.
    h.clock.set(T + DAY);
    expect((await list(org)).issues[0].daily_counts).toEqual([0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 2, 0]);
  });

  it('counts the current partial hour and page-level issues (signals on no element) too', async () => {
    const org = await h.org();
    const T = noon();
    const sid = randomUUID().replace(/-/g, '');
    const now = T + 20 * MIN;
    h.clock.set(now);
    await sendImport(h, org, sid, [
      { type: 'pageview', ts: T - 3 * HOUR, page: '/checkout' },
      { type: 'signal', ts: T - 2 * HOUR, page: '/checkout', signal_type: 'rage_click', element: 'button.pay' }, // a whole hour
      { type: 'signal', ts: T + 5 * MIN, page: '/checkout', signal_type: 'rage_click', element: 'button.pay' }, // this hour, so far
      { type: 'signal', ts: T - 2 * HOUR, page: '/checkout', signal_type: 'error_encounter' }, // page-level, a whole hour
      { type: 'signal', ts: T + 10 * MIN, page: '/checkout', signal_type: 'error_encounter' }, // page-level, this hour
      { type: 'signal', ts: T + 10 * MIN, page: '/cart', signal_type: 'error_encounter' }, // another page
    ]);
    await insertIssue(h, org, { title: 'pay', priority: 50 });
    await insertIssue(h, org, { title: 'errors', element_selector: '', type: 'error_encounter', priority: 40 });
    const issues = (await list(org)).issues as { title: string; daily_counts: number[] }[];
    expect(issues.find((i) => i.title === 'pay')!.daily_counts.at(-1)).toBe(2);
    expect(issues.find((i) => i.title === 'errors')!.daily_counts).toEqual([...Array(13).fill(0), 2]);
  });
});
