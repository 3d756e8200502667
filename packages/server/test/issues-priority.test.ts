// Issue priority through the real paths, on both dialects: the pipeline's prioritise step (users
// over 7 days, the site's weights), PATCH recomputing it, /v1/query/issues sorting and
// filtering by it, and migration 0013 backfilling rows it finds. Expected numbers are worked
// out by hand next to each check, by the formula of docs/issues.md "Priority" (see also
// test/priority-unit.test.ts).
import { randomUUID } from 'node:crypto';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { emptyStore } from './helpers/empty-store.ts';
import { DAY, HOUR, MIN, api, cycle, eventsOfType, freshStart, issueRow, ok, sendVisits, sidOf, vidOf } from './helpers/traffic.ts';
import { migrateToLatest, migrationsThrough } from '../src/store/migrate.ts';

const PAY = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };

/** An issue row written straight to the store, for the list's order and filters. */
async function insertIssue(h: Harness, siteId: string, row: Record<string, unknown>) {
  const id = randomUUID();
  const at = h.clock.now();
  await h.store.db.insertInto('ux_issues').values({
    id, site_id: siteId, fingerprint: randomUUID(), title: 'An issue', page: '/p', element_selector: 'button.x', element_label: null,
    type: 'rage_click', severity: 'medium', severity_score: 30, severity_manual: null, status: 'open', assigned_to: null, signal_count: 3,
    session_count: 2, user_count: 2, first_seen_at: at - HOUR, last_seen_at: at - HOUR, resolved_at: null, ignored_at: null,
    status_changed_at: at, created_at: at, updated_at: at, ticket_provider: null, ticket_id: null, ticket_url: null,
    users_7d: 2, signal_weight: 25, revenue_at_risk_cents: null, priority: 10, priority_reason: 'medium',
    ...row,
  }).execute();
  return id;
}

eachDialect('issue priority', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  it('the cycle stores users over 7 days, the site\'s weight and the priority; PATCH recomputes it', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    const key = org.keys.secret;
    const C = S + 8 * DAY + 2 * HOUR;
    // 8 days and an hour before the cycle: outside the 7 days.
    h.clock.set(S + HOUR + MIN);
    await sendVisits(h, org, prefix, [{ n: 1, page: '/checkout', at: S + HOUR, signals: [PAY] }, { n: 2, page: '/checkout', at: S + HOUR, signals: [PAY] }]);
    // 3 days before: inside the 7 days, outside the 24 hours.
    h.clock.set(S + 5 * DAY + MIN);
    await sendVisits(h, org, prefix, [3, 4, 5].map((n) => ({ n, page: '/checkout', at: S + 5 * DAY, signals: [PAY] })));
    // The last 24 hours: visitors 6 (two sessions) and 7, 4 fires from 3 sessions.
    h.clock.set(C - MIN);
    await sendVisits(h, org, prefix, [{ n: 6, page: '/checkout', at: C - HOUR, signals: [PAY, PAY] }, { n: 7, page: '/checkout', at: C - HOUR, signals: [PAY] }]);
    const again = await h.app.inject({
      method: 'POST', url: '/v1/ingest',
      payload: {
        key: org.keys.publishable, sid: sidOf(prefix, 8), vid: vidOf(prefix, 6), url: 'https://shop.example/checkout', ts: h.clock.now(),
        events: [{ type: 'pageview', ts: C - 30 * MIN, page: '/checkout' }, { type: 'signal', ts: C - 29 * MIN, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', confidence: 1 }],
      },
    });
    expect(again.statusCode, again.body).toBe(202);
    await cycle(h, org.site_id, C);

    // Severity: tier 1 30 + 25 / 40 x 10 = 36.25; 2 of 2 users x 25; log10(5) / log10(1001) x 15 =
    // 3.4943; /checkout 10; no conversions 0; all 4 in 48 hours 5: 79.74 -> 79.7, critical.
    // Users in 7 days: visitors 3, 4, 5, 6, 7 = 5 (visitor 6's second session counts once; 1 and 2 are older).
    // No conversions, so no revenue part: (35 x log10(6) / log10(1001) = 9.0771 + 30 + 15 x 25 / 40 = 9.375) x 1.25 = 60.57 -> 60.6.
    let row = await issueRow(h, org.site_id);
    expect(row).toMatchObject({
      user_count: 2, session_count: 3, users_7d: 5, severity: 'critical', severity_score: 79.7, signal_weight: 25, revenue_at_risk_cents: null,
      priority: 60.6, priority_reason: 'critical; 5 users in 7 days; rage click (weight 25)',
    });
    const listed = (await ok(h, key, 'GET', '/v1/query/issues')).issues[0];
    expect(listed).toMatchObject({ id: row.id, users_7d: 5, user_count: 2, revenue_at_risk_cents: null, priority: 60.6, priority_reason: row.priority_reason });
    // issue.created carried the cluster step's first estimate: 24-hour users (2) as the 7-day count.
    // (35 x log10(3) / log10(1001) = 5.5656 + 30 + 9.375) x 1.25 = 56.2 -> 56.2.
    const [created] = await eventsOfType(h, org.site_id, 'issue.created');
    expect(created.data).toMatchObject({ users_7d: 2, priority: 56.2, priority_reason: 'critical; 2 users in 7 days; rage click (weight 25)' });

    // The site's own weight for rage clicks: the next cycle uses it. Severity 30 + 7.5 + ... = 81.0;
    // priority (9.0771 + 30 + 15 x 30 / 40 = 11.25) x 1.25 = 62.91 -> 62.9.
    h.clock.set(C + MIN);
    await ok(h, key, 'PATCH', '/v1/manage/sdk-config/production', { signal_weights: { rage_click: 30 } });
    const r2 = await cycle(h, org.site_id, C + 15 * MIN);
    expect(r2.status === 'done' && r2.priorities).toEqual({ updated: 1 });
    row = await issueRow(h, org.site_id);
    expect(row).toMatchObject({ signal_weight: 30, users_7d: 5, priority: 62.9, priority_reason: 'critical; 5 users in 7 days; rage click (weight 30)' });
    // Nothing changed: the same cycle again writes nothing.
    const r3 = await cycle(h, org.site_id, C + 15 * MIN);
    expect(r3.status === 'done' && r3.priorities).toEqual({ updated: 0 });

    // A severity set by hand: (9.0771 + 7.5 + 11.25) x 1.25 = 34.78 -> 34.8, in the same write as
    // the severity, and in the event it sends.
    h.clock.set(C + 20 * MIN);
    const low = await ok(h, key, 'PATCH', `/v1/manage/issues/${row.id}`, { severity: 'low' });
    expect(low).toMatchObject({ severity: 'low', severity_source: 'manual', priority: 34.8, priority_reason: 'low; 5 users in 7 days; rage click (weight 30)' });
    expect((await issueRow(h, org.site_id)).priority).toBe(34.8);
    const updates = await eventsOfType(h, org.site_id, 'issue.updated');
    expect(updates.at(-1)!.data).toMatchObject({ priority: 34.8 });
    // Back to computed (critical): 62.9 again. A status change keeps the number (the order handles status).
    expect(await ok(h, key, 'PATCH', `/v1/manage/issues/${row.id}`, { severity: null })).toMatchObject({ severity: 'critical', priority: 62.9 });
    expect(await ok(h, key, 'PATCH', `/v1/manage/issues/${row.id}`, { status: 'triaged' })).toMatchObject({ status: 'triaged', priority: 62.9 });
    // A severity set by hand sticks through the next cycle, and the step prices it by that
    // severity: (9.0771 + 15 + 11.25) x 1.25 = 44.16 -> 44.2.
    await ok(h, key, 'PATCH', `/v1/manage/issues/${row.id}`, { severity: 'medium' });
    await cycle(h, org.site_id, C + 30 * MIN);
    expect(await issueRow(h, org.site_id)).toMatchObject({ severity: 'medium', priority: 44.2, priority_reason: 'medium; 5 users in 7 days; rage click (weight 30)' });

    // The 7-day users are read again at most hourly: a new visitor at C + 40 min shows from the
    // cycle at C + 60 min (an hour after C, when they were read), not at C + 45 min.
    h.clock.set(C + 41 * MIN);
    await sendVisits(h, org, prefix, [{ n: 9, page: '/checkout', at: C + 40 * MIN, signals: [PAY] }]);
    await cycle(h, org.site_id, C + 45 * MIN);
    expect(await issueRow(h, org.site_id)).toMatchObject({ users_7d: 5, priority_inputs_at: C });
    h.clock.set(C + 60 * MIN);
    await cycle(h, org.site_id, C + 60 * MIN);
    // (35 x log10(7) / log10(1001) = 9.8580 + 15 + 11.25) x 1.25 = 45.135 -> 45.1.
    expect(await issueRow(h, org.site_id)).toMatchObject({ users_7d: 6, priority: 45.1, priority_inputs_at: C + 60 * MIN });
  });

  describe('GET /v1/query/issues: order and filters', () => {
    let key: string;
    let siteId: string;
    const ids: Record<string, string> = {};
    const listIds = async (query = '') => (await ok(h, key, 'GET', `/v1/query/issues${query}`)).issues.map((i: { id: string }) => i.id);

    it('sorts by priority by default: needing attention first, regressed first at equal priority, then last seen', async () => {
      const org = await h.org('Order');
      key = org.keys.secret;
      siteId = org.site_id;
      const now = h.clock.now();
      const add = async (name: string, row: Record<string, unknown>) => { ids[name] = await insertIssue(h, siteId, row); };
      await add('critical', { title: 'Dead end on Pay', severity: 'critical', priority: 40, users_7d: 2, revenue_at_risk_cents: null, page: '/checkout', type: 'dead_end_submit', last_seen_at: now - 1000 });
      await add('reach', { title: 'Rage clicks on Place order', severity: 'high', priority: 80, users_7d: 272, revenue_at_risk_cents: 716_700, page: '/checkout', element_label: 'Place order', element_selector: 'button#place-order' });
      await add('regressed', { title: 'Filter spiral', status: 'regressed', severity: 'high', priority: 60, users_7d: 40, revenue_at_risk_cents: 91_100, page: '/search', type: 'filter_spiral', last_seen_at: now - 5 * HOUR });
      await add('tie', { title: 'Dead clicks on Apply', status: 'triaged', severity: 'medium', priority: 60, users_7d: 100, page: '/cart', type: 'dead_click', element_label: 'Apply 50% off', assigned_to: 'dana@shop.example', last_seen_at: now - 1000 });
      await add('resolved', { title: 'Old rage clicks', status: 'resolved', severity: 'critical', priority: 99, users_7d: 500, page: '/product/:id', last_seen_at: now });
      await add('progress', { title: 'Form restarts', status: 'in_progress', severity: 'low', priority: 20, users_7d: 3, page: '/signup', type: 'form_restart', element_selector: 'form_x', assigned_to: 'lee@shop.example', last_seen_at: now - 2 * HOUR });
      await add('ignored', { title: 'Ignored', status: 'ignored', severity: 'low', priority: 5, users_7d: 1, page: '/x' });

      expect(await listIds()).toEqual(['reach', 'regressed', 'tie', 'critical', 'progress', 'resolved', 'ignored'].map((n) => ids[n]));
      expect(await listIds('?sort=priority')).toEqual(await listIds());
      // Paging walks the same order.
      expect(await listIds('?limit=2&offset=1')).toEqual([ids.regressed, ids.tie]);
    });

    it('sort=severity, users, revenue (unknown last) and last_seen', async () => {
      // Severity, then the priority order within a severity: the open critical (40) before the
      // resolved one (99), since needing attention comes first; high: reach 80, regressed 60.
      expect(await listIds('?sort=severity')).toEqual(['critical', 'resolved', 'reach', 'regressed', 'tie', 'progress', 'ignored'].map((n) => ids[n]));
      expect(await listIds('?sort=users')).toEqual(['resolved', 'reach', 'tie', 'regressed', 'progress', 'critical', 'ignored'].map((n) => ids[n]));
      expect(await listIds('?sort=revenue')).toEqual(['reach', 'regressed', 'tie', 'critical', 'progress', 'resolved', 'ignored'].map((n) => ids[n]));
      const seen = await ok(h, key, 'GET', '/v1/query/issues?sort=last_seen');
      const times = seen.issues.map((i: { last_seen_at: string }) => Date.parse(i.last_seen_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(seen.issues[0].id).toBe(ids.resolved);
    });

    it('attention, status, severity, type, assigned_to, page and q narrow the list and its total', async () => {
      const list = async (query: string) => ok(h, key, 'GET', `/v1/query/issues${query}`);
      const attention = await list('?attention=true');
      // open, triaged, in_progress and regressed: 5 of 7.
      expect(attention.total).toBe(5);
      expect(attention.issues.map((i: { id: string }) => i.id)).toEqual(['reach', 'regressed', 'tie', 'critical', 'progress'].map((n) => ids[n]));
      expect((await list('?attention=false')).issues.map((i: { id: string }) => i.id)).toEqual([ids.resolved, ids.ignored]);
      // status keeps its exact meaning: open is open only.
      expect((await list('?status=open')).issues.map((i: { id: string }) => i.id)).toEqual([ids.reach, ids.critical]);
      expect((await list('?status=open&attention=false')).total).toBe(0);
      expect((await list('?severity=high')).issues.map((i: { id: string }) => i.id)).toEqual([ids.reach, ids.regressed]);
      expect((await list('?type=dead_click')).issues.map((i: { id: string }) => i.id)).toEqual([ids.tie]);
      expect((await list('?assigned_to=lee@shop.example')).issues.map((i: { id: string }) => i.id)).toEqual([ids.progress]);
      // page is normalized as ingest stores pages: ids become :id, query strings and trailing slashes go.
      expect((await list('?page=/product/12345')).issues.map((i: { id: string }) => i.id)).toEqual([ids.resolved]);
      expect((await list(`?page=${encodeURIComponent('/checkout/?step=2')}`)).total).toBe(2);
      // q: case-insensitive, in the title, label, selector or page.
      expect((await list('?q=PLACE')).issues.map((i: { id: string }) => i.id)).toEqual([ids.reach]);
      expect((await list('?q=place-order')).total).toBe(1); // the selector
      expect((await list('?q=%2Fsear')).issues.map((i: { id: string }) => i.id)).toEqual([ids.regressed]); // the page
      // LIKE's wildcards are matched as themselves: % only where the text has one, _ likewise.
      expect((await list('?q=50%25')).issues.map((i: { id: string }) => i.id)).toEqual([ids.tie]);
      expect((await list('?q=%25')).issues.map((i: { id: string }) => i.id)).toEqual([ids.tie]);
      expect((await list('?q=m_x')).total).toBe(1); // form_x, not "form" followed by any character elsewhere
      expect((await list('?q=_')).issues.map((i: { id: string }) => i.id)).toEqual([ids.progress]);
      // Filters combine; the total counts what matches.
      const both = await list('?attention=true&severity=high&limit=1');
      expect(both).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(both.issues.map((i: { id: string }) => i.id)).toEqual([ids.reach]);
    });

    it('answers 400 invalid_input naming the field for a bad value', async () => {
      const bad = async (query: string, field: string) => {
        const res = await api(h, key, 'GET', `/v1/query/issues${query}`);
        expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field } });
      };
      await bad('?sort=newest', 'sort');
      await bad('?severity=urgent', 'severity');
      await bad('?attention=maybe', 'attention');
      await bad('?type=Rage%20Click', 'type');
      await bad('?page=checkout', 'page');
      await bad(`?q=${'x'.repeat(201)}`, 'q');
      // status keeps its own code.
      const status = await api(h, key, 'GET', '/v1/query/issues?status=opened');
      expect(status.statusCode).toBe(400);
      expect(status.json().error).toMatchObject({ code: 'invalid_status', details: { field: 'status' } });
    });
  });

  it('migration 0013 gives the rows it finds a stand-in priority from severity and 24-hour users', async () => {
    const { store, schema, drop } = await emptyStore(dialect.name);
    try {
      const old = new Migrator({
        db: store.db, provider: { getMigrations: async () => migrationsThrough('0012-calibrated-scores') },
        migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock', migrationTableSchema: schema,
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const issue = (id: string, severity: string, users: number) => ({
        id, site_id: 's1', fingerprint: id, title: id, page: '/p', element_selector: 'b', element_label: null, type: 'rage_click', severity,
        severity_score: 50, severity_manual: null, status: 'open', assigned_to: null, signal_count: users + 2, session_count: users, user_count: users,
        first_seen_at: 1, last_seen_at: 2, resolved_at: null, ignored_at: null, status_changed_at: 1, created_at: 1, updated_at: 1,
        ticket_provider: null, ticket_id: null, ticket_url: null,
      });
      await (store.db as any).insertInto('ux_issues').values([
        issue('a', 'critical', 272), issue('b', 'low', 1), issue('c', 'medium', 0), issue('d', 'high', 5000),
      ]).execute();
      expect(await migrateToLatest(store.db)).toContain('0013-issue-priority');
      const rows = await store.db.selectFrom('ux_issues').select(['id', 'users_7d', 'signal_weight', 'revenue_at_risk_cents', 'priority', 'priority_reason'])
        .orderBy('id').execute();
      // (35 x log10(1 + users) / log10(1001), at most 35, + 30 x severity share + 15 x 10 / 40) x 100 / 80:
      // a (28.4178 + 30 + 3.75) x 1.25 = 77.71; b (3.5115 + 7.5 + 3.75) x 1.25 = 18.45; c (0 + 15 + 3.75) x 1.25 = 23.44;
      // d (35 + 22.5 + 3.75) x 1.25 = 76.56.
      expect(rows).toEqual([
        { id: 'a', users_7d: 272, signal_weight: null, revenue_at_risk_cents: null, priority: 77.7, priority_reason: 'critical; 272 users in 24 hours (estimated until the next pipeline cycle)' },
        { id: 'b', users_7d: 1, signal_weight: null, revenue_at_risk_cents: null, priority: 18.5, priority_reason: 'low; 1 user in 24 hours (estimated until the next pipeline cycle)' },
        { id: 'c', users_7d: 0, signal_weight: null, revenue_at_risk_cents: null, priority: 23.4, priority_reason: 'medium; 0 users in 24 hours (estimated until the next pipeline cycle)' },
        { id: 'd', users_7d: 5000, signal_weight: null, revenue_at_risk_cents: null, priority: 76.6, priority_reason: 'high; 5000 users in 24 hours (estimated until the next pipeline cycle)' },
      ]);
      // A row written later without the new columns takes their defaults.
      await (store.db as any).insertInto('ux_issues').values(issue('e', 'low', 3)).execute();
      expect(await store.db.selectFrom('ux_issues').select(['users_7d', 'priority', 'priority_reason']).where('id', '=', 'e').executeTakeFirst())
        .toEqual({ users_7d: 0, priority: 0, priority_reason: '' });
    } finally {
      await drop();
    }
  });
});
