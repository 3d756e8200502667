// GET /v1/query/sessions (issue 29): five sessions sent through the real ingest route, with
// known devices, browsers, pages, signals, conversions and times, so every filter and sort has
// an answer worked out by hand; pagination and total; bad parameters are 400 invalid_input
// naming the parameter; another org's site or issue is 404. The friction weight ingest keeps on
// the session row (sum of weight x cf, the site's own weights), and migration 0018's backfill of
// the rows it finds. Both dialects.
import { randomUUID } from 'node:crypto';
import { Migrator } from 'kysely';
import { expect, it } from 'vitest';
import { bearer, eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { emptyStore } from './helpers/empty-store.ts';
import { withoutLinks } from './helpers/mcp-kit.ts';
import { CHROME_WINDOWS_UA, DAY, MIN, SEC, expectInvalid, postIngest, query, queryOk, send, type Ev, type Org } from './helpers/ingest-kit.ts';
import { migrateToLatest, migrationsThrough } from '../src/store/migrate.ts';
import { SESSIONS_TOTAL_CAP } from '../src/features/sessions/schemas.ts';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const sid = (c: string) => c.repeat(32);
const S = { A: sid('a'), B: sid('b'), C: sid('c'), D: sid('d'), E: sid('e') };

eachDialect('sessions search', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  /** One session of `events(at)`, started `ago` ms before now: live within a day, an import (original times kept) before. */
  async function session(org: Org, id: string, ua: string, ago: number, events: (at: (s: number) => number) => Ev[]) {
    const start = h.clock.now() - ago;
    const evs = events((s) => start + s * SEC);
    if (ago <= DAY) return send(h, org, id, evs, { meta: { ua } });
    const res = await postIngest(h, { sid: id, ts: h.clock.now(), import: true, meta: { ua }, events: evs }, bearer(org.keys.secret));
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ accepted: evs.length, rejected: 0 });
  }

  /**
   * A: desktop Chrome, 1 h ago, 60 s, /cart -> /checkout, a rage click (cf 0.9: 25 x 0.9 = 22.5) on Pay now, then bought.
   * B: mobile Safari, 2 h ago, 300 s, /products/42 (stored /products/:id), two dead clicks (12 + 12 = 24), no conversion.
   * C: desktop Chrome, 3 h ago, 10 s, /checkout, a form abandonment (20), no conversion.
   * D: tablet Safari, 3 days ago, 120 s, /Checkout -> /account/7/orders (stored /account/:id/orders), no signal, bought.
   * E: desktop Chrome, 10 days ago (outside the default 7 days), /checkout, a rage click on Pay now (25).
   */
  async function seed(org: Org) {
    await session(org, S.A, CHROME_WINDOWS_UA, HOUR, (at) => [
      { type: 'pageview', ts: at(0), page: '/cart' },
      { type: 'pageview', ts: at(20), page: '/checkout' },
      { type: 'signal', ts: at(30), page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.9, count: 4, duration_ms: 1200 },
      { type: 'track', ts: at(60), page: '/checkout', name: 'checkout_completed', props: { amount_cents: 5000 } },
    ]);
    await session(org, S.B, IPHONE_UA, 2 * HOUR, (at) => [
      { type: 'pageview', ts: at(0), page: '/products/42' },
      { type: 'signal', ts: at(100), page: '/products/42', signal_type: 'dead_click', element: 'a.size-guide', label: 'Size guide' },
      { type: 'signal', ts: at(300), page: '/products/42', signal_type: 'dead_click', element: 'a.size-guide', label: 'Size guide' },
    ]);
    await session(org, S.C, CHROME_WINDOWS_UA, 3 * HOUR, (at) => [
      { type: 'pageview', ts: at(0), page: '/checkout' },
      { type: 'signal', ts: at(10), page: '/checkout', signal_type: 'form_abandonment', element: 'form#pay' },
    ]);
    await session(org, S.D, IPAD_UA, 3 * DAY, (at) => [
      { type: 'pageview', ts: at(0), page: '/Checkout' },
      { type: 'pageview', ts: at(60), page: '/account/7/orders' },
      { type: 'track', ts: at(120), page: '/account/7/orders', name: 'purchase_completed' },
    ]);
    await session(org, S.E, CHROME_WINDOWS_UA, 10 * DAY, (at) => [
      { type: 'pageview', ts: at(0), page: '/checkout' },
      { type: 'signal', ts: at(5), page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now' },
    ]);
  }

  const search = async (org: Org, params: Record<string, string | number | boolean> = {}) => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    return queryOk(h, org.keys.secret, `/v1/query/sessions?${qs}`);
  };
  const ids = async (org: Org, params: Record<string, string | number | boolean> = {}) =>
    (await search(org, params)).sessions.map((s: { session_id: string }) => Object.entries(S).find(([, v]) => v === s.session_id)![0]).join('');
  const ago = (ms: number) => iso(h.clock.now() - ms);

  async function issueOn(h: Harness, siteId: string, page: string, element: string, type: string) {
    const id = randomUUID();
    const at = h.clock.now();
    await h.store.db.insertInto('ux_issues').values({
      id, site_id: siteId, fingerprint: randomUUID(), title: 'Rage clicks on Pay now', page, element_selector: element, element_label: null,
      type, severity: 'high', severity_score: 60, severity_manual: null, status: 'open', assigned_to: null, signal_count: 2,
      session_count: 1, user_count: 1, first_seen_at: at - 10 * DAY, last_seen_at: at - HOUR, resolved_at: null, ignored_at: null,
      status_changed_at: at, created_at: at, updated_at: at, ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
    return id;
  }

  it('answers the rows by friction weight by default, with every field, in the last 7 days', async () => {
    const org = await h.org('Sessions');
    await seed(org);
    const all = await search(org);
    expect(all).toMatchObject({ total: 4, offset: 0, limit: 50, window_from: ago(7 * DAY), window_to: iso(h.clock.now()) });
    expect(all.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([S.B, S.A, S.C, S.D]);
    const a = all.sessions[1];
    const start = h.clock.now() - HOUR;
    expect(a).toEqual({
      session_id: S.A, started_at: iso(start), ended_at: iso(start + 60 * SEC), duration_ms: 60_000,
      pages: ['/cart', '/checkout'], page_count: 2, signals: { rage_click: 1 }, signal_count: 1, friction_weight: 22.5,
      converted: true, device: 'desktop', browser: 'Chrome', clips: 0,
      summary: "2 pages from /cart to /checkout in 1 min; on /checkout the user clicked 'Pay now' (button.pay) 4 times in 1.2 s with no response; converted.",
    });
    expect(all.sessions.map((s: { friction_weight: number }) => s.friction_weight)).toEqual([24, 22.5, 20, 0]);
    expect(all.sessions[0]).toMatchObject({
      pages: ['/products/:id'], device: 'mobile', browser: 'Safari', converted: false,
      summary: "1 page (/products/:id) in 5 min; on /products/:id the user clicked 'Size guide' (a.size-guide) and nothing happened (1 more signal); did not convert.",
    });
    expect(all.sessions[3]).toMatchObject({ device: 'tablet', signals: {}, summary: '2 pages from /Checkout to /account/:id/orders in 2 min; no friction signals; converted.' });
  });

  it('sorts by start and duration; pages with offset and limit, total counting every match', async () => {
    const org = await h.org('Sorts');
    await seed(org);
    expect(await ids(org, { sort: 'friction' })).toBe('BACD');
    expect(await ids(org, { sort: 'start' })).toBe('ABCD');
    expect(await ids(org, { sort: 'duration' })).toBe('BDAC');
    const page = await search(org, { limit: 2, offset: 1 });
    expect(page).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(page.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([S.A, S.C]);
    expect(await ids(org, { offset: 4 })).toBe('');
    expect((await search(org, { offset: 4 })).total).toBe(4);
  });

  it('filters by page (exact, normalized, or a case-sensitive * pattern), signal type, issue, device, browser, conversion, clips, friction and window', async () => {
    const org = await h.org('Filters');
    await seed(org);
    expect(await ids(org, { page: '/checkout' })).toBe('AC');
    expect(await ids(org, { page: '/Checkout' })).toBe('D');
    expect(await ids(org, { page: '/check*' })).toBe('AC');
    expect(await ids(org, { page: '/*out*' })).toBe('ACD');
    expect(await ids(org, { page: '/*' })).toBe('BACD');
    expect(await ids(org, { page: '/products/42' })).toBe('B');
    expect(await ids(org, { page: '/account/*/orders' })).toBe('D');
    expect(await ids(org, { page: '/nowhere' })).toBe('');
    expect(await ids(org, { signal_type: 'dead_click' })).toBe('B');
    expect(await ids(org, { signal_type: 'rage_click' })).toBe('A');
    expect(await ids(org, { signal_type: 'rage_click', from: ago(20 * DAY) })).toBe('EA');
    expect(await ids(org, { device: 'mobile' })).toBe('B');
    expect(await ids(org, { device: 'tablet' })).toBe('D');
    expect(await ids(org, { device: 'desktop' })).toBe('AC');
    expect(await ids(org, { browser: 'safari' })).toBe('BD');
    expect(await ids(org, { browser: 'Chrome' })).toBe('AC');
    expect(await ids(org, { converted: true })).toBe('AD');
    expect(await ids(org, { converted: false })).toBe('BC');
    expect(await ids(org, { has_clips: true })).toBe('');
    expect((await search(org, { has_clips: true })).total).toBe(0);
    expect(await ids(org, { has_clips: false })).toBe('BACD');
    expect(await ids(org, { min_friction: 22.5 })).toBe('BA');
    expect(await ids(org, { min_friction: 24.1 })).toBe('');
    expect(await ids(org, { from: ago(2.5 * HOUR), to: ago(30 * MIN) })).toBe('BA');
    expect(await ids(org, { from: ago(20 * DAY) })).toBe('EBACD');
    expect(await ids(org, { to: ago(2 * DAY) })).toBe('D');
    // Filters combine with AND.
    expect(await ids(org, { page: '/check*', converted: false, device: 'desktop' })).toBe('C');

    const issue = await issueOn(h, org.site_id, '/checkout', 'button.pay', 'rage_click');
    expect(await ids(org, { issue_id: issue })).toBe('A');
    expect(await ids(org, { issue_id: issue.toUpperCase(), from: ago(20 * DAY), sort: 'start' })).toBe('AE');
    const other = await issueOn(h, org.site_id, '/checkout', 'button.other', 'rage_click');
    expect(await ids(org, { issue_id: other })).toBe('');
  });

  it('refuses bad parameters with invalid_input naming the field', async () => {
    const org = await h.org('Bad');
    const bad = (qs: string, field: string) => expectInvalid(h, org.keys.secret, `/v1/query/sessions?${qs}`, field);
    await bad('sort=newest', 'sort');
    await bad('limit=0', 'limit');
    await bad('limit=201', 'limit');
    await bad('offset=-1', 'offset');
    await bad('page=checkout', 'page');
    await bad('page=/a**b', 'page');
    await bad('page=/a%20*', 'page');
    await bad('issue_id=not-a-uuid', 'issue_id');
    await bad('signal_type=Rage-Click', 'signal_type');
    await bad('device=phone', 'device');
    await bad('converted=maybe', 'converted');
    await bad('has_clips=2', 'has_clips');
    await bad('min_friction=-1', 'min_friction');
    await bad(`from=${ago(100 * DAY)}`, 'from');
    await bad(`to=${iso(h.clock.now() + HOUR)}`, 'to');
    await bad(`from=${ago(HOUR)}&to=${ago(2 * HOUR)}`, 'to');
  });

  it('keeps to the caller\'s tenancy: another org\'s site or issue is 404', async () => {
    const mine = await h.org('Mine');
    const theirs = await h.org('Theirs');
    await seed(theirs);
    const theirIssue = await issueOn(h, theirs.site_id, '/checkout', 'button.pay', 'rage_click');
    const issueRes = await query(h, mine.keys.secret, `/v1/query/sessions?issue_id=${theirIssue}`);
    expect(issueRes.statusCode, issueRes.body).toBe(404);
    expect(issueRes.json().error).toMatchObject({ code: 'not_found' });
    const siteRes = await query(h, mine.jwt, `/v1/query/sessions?site_id=${theirs.site_id}`);
    expect(siteRes.statusCode, siteRes.body).toBe(404);
    expect((await search(mine)).sessions).toEqual([]);
  });

  it('the MCP tool find_sessions answers the same search, one line per session', async () => {
    const org = await h.org('Mcp');
    await seed(org);
    const call = async (args: Record<string, unknown>) => {
      const res = await h.app.inject({
        method: 'POST', url: '/v1/mcp', headers: { ...bearer(org.keys.mcp), accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find_sessions', arguments: args } },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().result as { content: { text: string }[]; structuredContent: unknown; isError?: boolean };
    };
    // The tool adds a dashboard link beside each session id; the rest is the route's answer.
    const all = await call({ limit: 50 });
    expect(all.isError).toBeFalsy();
    expect(withoutLinks(all.structuredContent)).toEqual(await search(org, { limit: 50 }));
    const rows = (all.structuredContent as { sessions: { session_id: string; dashboard_url: string }[] }).sessions;
    for (const row of rows) expect(row.dashboard_url).toMatch(new RegExp(`/app/#/sessions/${row.session_id}$`));
    const minute = (ms: number) => iso(ms).slice(0, 16).replace('T', ' ');
    const now = h.clock.now();
    const lines = all.content[0].text.split('\n');
    expect(lines[0]).toBe(`4 sessions from ${ago(7 * DAY)} to ${iso(now)}, by friction; showing 1 to 4:`);
    // One line per session, in order: id, start, duration, pages, friction and top signals, conversion, summary.
    const expected = [
      [S.B, `${minute(now - 2 * HOUR)} UTC, 5 min, 1 page, friction 24 (dead_click 2), not converted: 1 page (/products/:id) in 5 min; on /products/:id the user clicked 'Size guide' (a.size-guide) and nothing happened (1 more signal); did not convert.`],
      [S.A, `${minute(now - HOUR)} UTC, 1 min, 2 pages, friction 22.5 (rage_click 1), converted: 2 pages from /cart to /checkout in 1 min; on /checkout the user clicked 'Pay now' (button.pay) 4 times in 1.2 s with no response; converted.`],
      [S.C, `${minute(now - 3 * HOUR)} UTC, 10 s, 1 page, friction 20 (form_abandonment 1), not converted: 1 page (/checkout) in 10 s; on /checkout the user left a form unfinished (form#pay); did not convert.`],
      [S.D, `${minute(now - 3 * DAY)} UTC, 2 min, 2 pages, friction 0, converted: 2 pages from /Checkout to /account/:id/orders in 2 min; no friction signals; converted.`],
    ];
    expect(lines).toHaveLength(1 + expected.length);
    expected.forEach(([id, rest], i) => {
      expect(lines[i + 1].startsWith(`- ${id}`)).toBe(true);
      expect(lines[i + 1].endsWith(rest)).toBe(true);
    });
    const narrowed = await call({ page: '/check*', converted: false, limit: 1 });
    expect(withoutLinks(narrowed.structuredContent)).toEqual(await search(org, { page: '/check*', converted: false, limit: 1 }));
    const narrowLines = narrowed.content[0].text.split('\n');
    expect(narrowLines[0]).toBe(`1 session (page /check*, not converted) from ${ago(7 * DAY)} to ${iso(now)}, by friction; showing 1 to 1:`);
    expect(narrowLines.slice(1).map((l) => l.startsWith(`- ${S.C}`))).toEqual([true]);
    expect((await call({ has_clips: true })).content[0].text).toBe(`No sessions (with clips) from ${ago(7 * DAY)} to ${iso(now)}.`);
    const bad = await call({ sort: 'newest' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain('sort');
  });

  it('counts up to 10,000 matches: past that total is the cap, total_capped says so, and pages go on past it', async () => {
    const org = await h.org('Capped');
    const now = h.clock.now();
    const row = (n: number) => ({
      id: randomUUID(), site_id: org.site_id, sid: n.toString(16).padStart(32, '0'), visitor_id: null, user_ref: null, environment: 'production',
      first_seen_at: now - HOUR - n, last_seen_at: now - HOUR - n + 1000, entry_page: '/p', exit_page: '/p', pages: '["/p"]', page_count: 1,
      event_count: 1, signal_count: 0, signal_counts: '{}', device_type: n % 2 ? 'mobile' : 'desktop', browser: null, os: null,
      viewport_bucket: null, app_version: null, referrer_host: null, converted: 0,
    });
    const rows = Array.from({ length: SESSIONS_TOTAL_CAP + 2 }, (_, n) => row(n));
    for (let i = 0; i < rows.length; i += 500) await h.store.db.insertInto('sessions').values(rows.slice(i, i + 500)).execute();
    const all = await search(org, { sort: 'start', limit: 200 });
    expect(all).toMatchObject({ total: SESSIONS_TOTAL_CAP, total_capped: true });
    // One short of the cap, exact: the mobile half (5,001) is under it.
    expect(await search(org, { device: 'mobile', limit: 1 })).toMatchObject({ total: (SESSIONS_TOTAL_CAP + 2) / 2, total_capped: false });
    // Pages go on past the capped total: the last two sessions are still there, latest start first.
    const tail = await search(org, { sort: 'start', offset: SESSIONS_TOTAL_CAP, limit: 5 });
    expect(tail.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([row(SESSIONS_TOTAL_CAP).sid, row(SESSIONS_TOTAL_CAP + 1).sid]);
    // And over MCP a page past the capped total is not refused as past the end.
    const res = await h.app.inject({
      method: 'POST', url: '/v1/mcp', headers: { ...bearer(org.keys.mcp), accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find_sessions', arguments: { sort: 'start', offset: SESSIONS_TOTAL_CAP, limit: 5 } } },
    });
    const mcp = res.json().result as { content: { text: string }[]; isError?: boolean };
    expect(mcp.isError, res.body).toBeFalsy();
    expect(mcp.content[0].text).toMatch(/^More than 10,000 sessions/);
  });

  it('weighs friction with the site\'s own signal weights, as scoring does', async () => {
    const org = await h.org('Weights');
    const res = await h.app.inject({
      method: 'PATCH', url: '/v1/manage/sdk-config/production', headers: bearer(org.keys.secret),
      payload: { signal_weights: { dead_click: 30 } },
    });
    expect(res.statusCode, res.body).toBe(200);
    await seed(org);
    // B: 2 x 30; A and C keep the registry's weights.
    expect((await search(org)).sessions.map((s: { friction_weight: number }) => s.friction_weight)).toEqual([60, 22.5, 20, 0]);
  });

  it('names in each summary the session\'s heaviest signal by the site\'s weights, the earliest of equals', async () => {
    const org = await h.org('Worst signal');
    // F: a form abandonment (20) before a rage click (25 x 0.8 = 20, a tie: the earlier wins), then a dead click (12).
    const F = sid('f');
    await session(org, F, CHROME_WINDOWS_UA, HOUR, (at) => [
      { type: 'pageview', ts: at(0), page: '/checkout' },
      { type: 'signal', ts: at(5), page: '/checkout', signal_type: 'form_abandonment', element: 'form#pay' },
      { type: 'signal', ts: at(10), page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.8, count: 3, duration_ms: 900 },
      { type: 'signal', ts: at(20), page: '/checkout', signal_type: 'dead_click', element: 'a.help', label: 'Help' },
    ]);
    const summary = async () => (await search(org)).sessions[0].summary as string;
    expect(await summary()).toContain('form#pay');
    // The site's own weights decide: the dead click (12 -> 50) is now the heaviest.
    const res = await h.app.inject({
      method: 'PATCH', url: '/v1/manage/sdk-config/production', headers: bearer(org.keys.secret),
      payload: { signal_weights: { dead_click: 50 } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = await summary();
    expect(after).toContain('a.help');
    expect(after).not.toContain('form#pay');
  });

  it('migration 0018 backfills the friction weight of the sessions it finds from their signals and the site\'s weights', async () => {
    const { store, schema, drop } = await emptyStore(name);
    try {
      const old = new Migrator({
        db: store.db, provider: { getMigrations: async () => migrationsThrough('0017-sso') },
        migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock', migrationTableSchema: schema,
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const db = store.db as any;
      const at = 1_700_000_000_000;
      const sessionRow = (id: string, site: string, s: string) => ({
        id, site_id: site, sid: s, visitor_id: null, user_ref: null, environment: 'production', first_seen_at: at, last_seen_at: at,
        entry_page: '/p', exit_page: '/p', pages: '["/p"]', page_count: 1, event_count: 3, signal_count: 2, signal_counts: '{}',
        device_type: null, browser: null, os: null, viewport_bucket: null, app_version: null, referrer_host: null, converted: 0,
      });
      await db.insertInto('sessions').values([sessionRow('1', 's1', S.A), sessionRow('2', 's2', S.A), sessionRow('3', 's1', S.B)]).execute();
      const signal = (id: string, site: string, s: string, type: string, confidence: number) => ({
        id, site_id: site, event_id: `e${id}`, sid: s, visitor_id: null, signal_type: type, page: '/p', element: '', label: null, confidence,
        occurred_at: at, rx: null, ry: null, vx: null, vy: null, environment: 'production',
      });
      await db.insertInto('signals').values([
        // s1/A: 25 x 0.5 + 10 (a custom type: the fallback) = 22.5; s2/A: its own weight 40 for rage_click x 0.5 + 12 = 32.
        signal('1', 's1', S.A, 'rage_click', 0.5), signal('2', 's1', S.A, 'my_custom_signal', 1),
        signal('3', 's2', S.A, 'rage_click', 0.5), signal('4', 's2', S.A, 'dead_click', 1),
      ]).execute();
      await db.insertInto('sdk_configs').values({ id: 'c2', site_id: 's2', environment: 'production', config: JSON.stringify({ signal_weights: { rage_click: 40 } }), updated_at: at }).execute();
      expect(await migrateToLatest(store.db)).toContain('0018-session-friction');
      const rows = await store.db.selectFrom('sessions').select(['id', 'friction_weight']).orderBy('id').execute();
      expect(rows).toEqual([{ id: '1', friction_weight: 22.5 }, { id: '2', friction_weight: 32 }, { id: '3', friction_weight: 0 }]);
    } finally {
      await drop();
    }
  });
});
