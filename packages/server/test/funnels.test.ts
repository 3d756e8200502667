// Funnels through the real paths, on both dialects: sessions sent through POST /v1/ingest (an
// import, so each event keeps its time), GET /v1/query/funnel answering conversions worked out
// by hand next to each check (steps out of order, repeats, a skipped step, the window's edge,
// an event step, device and time filters, wildcards), bad parameters answered 400 naming the
// field, and saved funnels: create, list, change, delete, validation, roles and tenancy.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditRows, bearer, eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { CHROME_WINDOWS_UA, DAY, expectInvalid, hex32, MIN, postIngest, queryOk, SEC, type Ev, type Org } from './helpers/ingest-kit.ts';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const STEPS = '/cart,/checkout,purchase';

const view = (page: string, ts: number): Ev => ({ type: 'pageview', ts, page });
const track = (name: string, ts: number, page: string): Ev => ({ type: 'track', ts, page, name });
const signal = (signal_type: string, ts: number, page: string): Ev => ({ type: 'signal', ts, page, signal_type, element: 'button.x', confidence: 1 });

async function session(h: Harness, org: Org, events: Ev[], ua = CHROME_WINDOWS_UA) {
  const res = await postIngest(h, { sid: hex32(), ts: h.clock.now(), import: true, meta: { ua }, events }, bearer(org.keys.secret));
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().data).toMatchObject({ accepted: events.length, rejected: 0 });
}

async function insertIssue(h: Harness, siteId: string, page: string, title: string, status = 'open', priority = 10) {
  const id = randomUUID();
  const at = h.clock.now();
  await h.store.db.insertInto('ux_issues').values({
    id, site_id: siteId, fingerprint: randomUUID(), title, page, element_selector: 'button.x', element_label: null,
    type: 'rage_click', severity: 'high', severity_score: 60, severity_manual: null, status, assigned_to: null, signal_count: 3,
    session_count: 2, user_count: 2, first_seen_at: at - HOUR, last_seen_at: at - HOUR, resolved_at: null, ignored_at: null,
    status_changed_at: at, created_at: at, updated_at: at, ticket_provider: null, ticket_id: null, ticket_url: null,
    users_7d: 2, signal_weight: 25, revenue_at_risk_cents: null, priority, priority_reason: 'high',
  }).execute();
  return id;
}

eachDialect('funnels', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  const funnel = (org: Org, params: Record<string, string | number>) =>
    queryOk(h, org.keys.secret, `/v1/query/funnel?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

  describe('GET /v1/query/funnel', () => {
    let org: Org;
    let T: number;
    const issues: Record<string, string> = {};

    // Nine sessions whose paths are known.
    beforeAll(async () => {
      org = await h.org('Funnels');
      T = h.clock.now() - 3 * HOUR;
      // A completes: /cart, /checkout 2 min, purchase 5 min; a rage click on /checkout before paying, form friction after.
      await session(h, org, [view('/cart', T), view('/checkout', T + 2 * MIN), signal('rage_click', T + 3 * MIN, '/checkout'), track('purchase', T + 5 * MIN, '/checkout/complete'), signal('form_friction', T + 6 * MIN, '/checkout/complete')]);
      // B reaches /checkout at 4 min, meets a dead click there and leaves.
      await session(h, org, [view('/cart', T), view('/checkout', T + 4 * MIN), signal('dead_click', T + 5 * MIN, '/checkout')]);
      // C out of order: /checkout before /cart; a rage click on /cart, then gone: enters step 1 only.
      await session(h, org, [view('/checkout', T), view('/cart', T + MIN), signal('rage_click', T + 2 * MIN, '/cart')]);
      // D repeats each step; counted once each: /cart 0 -> /checkout 6 min -> purchase 8 min.
      await session(h, org, [view('/cart', T), view('/cart', T + MIN), view('/checkout', T + 6 * MIN), view('/checkout', T + 7 * MIN), track('purchase', T + 8 * MIN, '/checkout/complete')]);
      // E skips /checkout: a purchase straight after /cart does not count.
      await session(h, org, [view('/cart', T), track('purchase', T + MIN, '/cart')]);
      // F pays exactly 60 minutes after entering /cart: inside the default window.
      await session(h, org, [view('/cart', T), view('/checkout', T + 10 * MIN), track('purchase', T + 60 * MIN, '/checkout/complete')]);
      // G pays a second later: outside it.
      await session(h, org, [view('/cart', T), view('/checkout', T + 10 * MIN), track('purchase', T + 60 * MIN + SEC, '/checkout/complete')]);
      // H on a phone: /cart, /checkout a minute later.
      await session(h, org, [view('/cart', T), view('/checkout', T + MIN)], IPHONE_UA);
      // I completed ten days ago: outside the default 7 days.
      const old = h.clock.now() - 10 * DAY;
      await session(h, org, [view('/cart', old), view('/checkout', old + MIN), track('purchase', old + 2 * MIN, '/checkout/complete')]);
      issues.cart = await insertIssue(h, org.site_id, '/cart', 'Coupon button fails');
      issues.checkout = await insertIssue(h, org.site_id, '/checkout', 'Pay button dead', 'open', 50);
      issues.checkoutLow = await insertIssue(h, org.site_id, '/checkout', 'Card field loops', 'triaged', 20);
      await insertIssue(h, org.site_id, '/checkout', 'Fixed already', 'resolved', 90);
      issues.complete = await insertIssue(h, org.site_id, '/checkout/complete', 'Receipt blank');
    });

    it('counts each step by hand: out of order, repeats, a skipped step and the window edge', async () => {
      const d = await funnel(org, { steps: STEPS });
      // Step 1: A B C D E F G H (I is older than 7 days). To /checkout: A B D F G H (C out of order, E skipped).
      // Minutes to /checkout: H 1, A 2, B 4, D 6, F 10, G 10 -> median (4 + 6) / 2 = 5.
      // Step 2: of six, A D F pay within 60 minutes of /cart (G a second late). Minutes to purchase: D 2, A 3, F 50 -> 3.
      expect(d).toMatchObject({ site_id: org.site_id, window_minutes: 60, entered: 8, completed: 3, window_to: iso(h.clock.now()), window_from: iso(h.clock.now() - 7 * DAY) });
      expect(d.steps.map((s: { step: string; kind: string; entered: number; converted: number; conversion_rate: number; median_ms_to_next: number | null }) =>
        [s.step, s.kind, s.entered, s.converted, s.conversion_rate, s.median_ms_to_next])).toEqual([
        ['/cart', 'page', 8, 6, 0.75, 5 * MIN],
        ['/checkout', 'page', 6, 3, 0.5, 3 * MIN],
        ['purchase', 'event', 3, 3, 1, null],
      ]);
    });

    it('shows the friction at each step: signals on its page, its open issues, who dropped after friction', async () => {
      const d = await funnel(org, { steps: STEPS });
      // /cart: C's rage click (C entered at /cart +1 min, left). E dropped too, with no friction.
      expect(d.steps[0].friction).toEqual({ signals: { rage_click: 1 }, issues: [{ id: issues.cart, title: 'Coupon button fails', severity: 'high', page: '/cart' }], dropped_after_friction: 1 });
      // /checkout: A's rage click before paying, B's dead click before leaving (B dropped after it); open issues by priority, not the resolved one.
      expect(d.steps[1].friction).toEqual({
        signals: { dead_click: 1, rage_click: 1 },
        issues: [{ id: issues.checkout, title: 'Pay button dead', severity: 'high', page: '/checkout' }, { id: issues.checkoutLow, title: 'Card field loops', severity: 'high', page: '/checkout' }],
        dropped_after_friction: 1,
      });
      // purchase (an event step): any page from paying to the window's end: A's form friction; issues on the pages it was sent from.
      expect(d.steps[2].friction).toEqual({ signals: { form_friction: 1 }, issues: [{ id: issues.complete, title: 'Receipt blank', severity: 'high', page: '/checkout/complete' }], dropped_after_friction: 0 });
    });

    it('window_minutes narrows who converts', async () => {
      // 5 minutes: A pays at exactly 5. D's first /cart misses /checkout (6 min); its second (/cart +1) reaches it at 6, pays at 8: too late.
      // F and G reach /checkout at 10: too late. To /checkout: A B D H; paid: A.
      const d = await funnel(org, { steps: STEPS, window_minutes: 5 });
      expect(d.steps.map((s: { entered: number; converted: number }) => [s.entered, s.converted])).toEqual([[8, 4], [4, 1], [1, 1]]);
      expect(d.steps[0].median_ms_to_next).toBe(Math.round((2 * MIN + 4 * MIN) / 2));
    });

    it('device and from/to filter the sessions', async () => {
      const mobile = await funnel(org, { steps: STEPS, device: 'mobile' });
      expect(mobile.steps.map((s: { entered: number; converted: number }) => [s.entered, s.converted])).toEqual([[1, 1], [1, 0], [0, 0]]);
      expect(mobile.steps[2].conversion_rate).toBe(0);
      const desktop = await funnel(org, { steps: STEPS, device: 'desktop' });
      expect([desktop.entered, desktop.completed]).toEqual([7, 3]);
      const now = h.clock.now();
      const longer = await funnel(org, { steps: STEPS, from: iso(now - 11 * DAY) });
      expect([longer.entered, longer.completed]).toEqual([9, 4]);
      const then = await funnel(org, { steps: STEPS, from: iso(now - 11 * DAY), to: iso(now - 9 * DAY) });
      expect([then.entered, then.completed, then.window_to]).toEqual([1, 1, iso(now - 9 * DAY)]);
      // Ending at T + 150 s: A and H reach /checkout, A's rage click there (T + 3 min) and its purchase (T + 5 min) fall after the end.
      const early = await funnel(org, { steps: STEPS, to: iso(T + 150 * SEC) });
      expect(early.steps.map((s: { entered: number; converted: number }) => [s.entered, s.converted])).toEqual([[8, 2], [2, 0], [0, 0]]);
      expect(early.steps[1].friction).toMatchObject({ signals: {}, dropped_after_friction: 0 });
      expect(early.steps[0].friction).toMatchObject({ signals: { rage_click: 1 }, dropped_after_friction: 1 });
      // Steps that must happen after T + 1 hour: only the window's events count (every /cart was before).
      const late = await funnel(org, { steps: STEPS, from: iso(T + 30 * MIN) });
      expect(late.entered).toBe(0);
      expect(late.steps[0]).toMatchObject({ entered: 0, converted: 0, conversion_rate: 0, median_ms_to_next: null });
    });

    it('page patterns with * and exact pages normalized as ingest stores them', async () => {
      const other = await h.org('Wildcards');
      const at = h.clock.now() - HOUR;
      await session(h, other, [view('/products/12345', at), view('/cart/', at + MIN)]);
      await session(h, other, [view('/products', at), view('/cart', at + MIN)]);
      await session(h, other, [view('/Products/shoes', at), view('/cart', at + MIN)]);
      const d = await funnel(other, { steps: '/products/*, /cart/' });
      // Only /products/:id matches /products/* (not /products, not /Products/shoes); /cart/ is stored and asked as /cart.
      expect(d.steps.map((s: { step: string; entered: number; converted: number }) => [s.step, s.entered, s.converted])).toEqual([['/products/*', 1, 1], ['/cart', 1, 1]]);
      expect((await funnel(other, { steps: '/*,/cart' })).entered).toBe(3);
    });

    it('bad parameters are 400 invalid_input naming the field', async () => {
      const key = org.keys.secret;
      const base = '/v1/query/funnel?steps=';
      await expectInvalid(h, key, `${base}/cart`, 'steps');
      await expectInvalid(h, key, `${base}${Array.from({ length: 11 }, (_, i) => `/p${i}`).join(',')}`, 'steps');
      await expectInvalid(h, key, `${base}/cart,,/checkout`, 'steps');
      await expectInvalid(h, key, `${base}${encodeURIComponent('/cart,/check out')}`, 'steps');
      await expectInvalid(h, key, `${base}${encodeURIComponent('/cart,/checkout/**')}`, 'steps');
      await expectInvalid(h, key, '/v1/query/funnel', 'steps');
      await expectInvalid(h, key, `${base}/cart,/checkout&window_minutes=0`, 'window_minutes');
      await expectInvalid(h, key, `${base}/cart,/checkout&window_minutes=10081`, 'window_minutes');
      await expectInvalid(h, key, `${base}/cart,/checkout&device=watch`, 'device');
      await expectInvalid(h, key, `${base}/cart,/checkout&from=yesterday`, 'from');
    });
  });

  describe('saved funnels', () => {
    const call = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      h.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

    it('an admin creates, lists, changes and deletes one; each write is audited', async () => {
      const org = await h.org('Saved');
      const created = await call(org.jwt, 'POST', '/v1/manage/funnels', { site_id: org.site_id, name: ' Checkout ', steps: ['/cart', ' /checkout ', 'purchase'] });
      expect(created.statusCode, created.body).toBe(201);
      const f = created.json().data;
      expect(f).toMatchObject({ site_id: org.site_id, name: 'Checkout', steps: ['/cart', '/checkout', 'purchase'], window_minutes: 60, created_at: iso(h.clock.now()) });
      const listed = await call(org.keys.secret, 'GET', '/v1/manage/funnels');
      expect(listed.json().data.funnels).toEqual([f]);

      const changed = await call(org.jwt, 'PATCH', `/v1/manage/funnels/${f.id}`, { window_minutes: 120, steps: ['/cart', '/checkout/*'] });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().data).toMatchObject({ id: f.id, name: 'Checkout', steps: ['/cart', '/checkout/*'], window_minutes: 120 });
      expect((await call(org.jwt, 'GET', `/v1/manage/funnels?site_id=${org.site_id}`)).json().data.funnels[0].window_minutes).toBe(120);

      const deleted = await call(org.jwt, 'DELETE', `/v1/manage/funnels/${f.id}`);
      expect(deleted.json().data).toEqual({ id: f.id, deleted: true });
      expect((await call(org.jwt, 'GET', '/v1/manage/funnels?site_id=' + org.site_id)).json().data.funnels).toEqual([]);
      expect((await call(org.jwt, 'DELETE', `/v1/manage/funnels/${f.id}`)).statusCode).toBe(404);
      const audit = await auditRows(h.store, org.org_id);
      expect(audit.filter((r) => r.action.startsWith('funnel.')).map((r) => [r.action, r.target_id])).toEqual([['funnel.created', f.id], ['funnel.updated', f.id], ['funnel.deleted', f.id]]);
    });

    it('validates like the query: steps, window, name; a bad id is invalid_uuid', async () => {
      const org = await h.org('Validate');
      const bad = async (payload: object, field: string, method: 'POST' | 'PATCH' = 'POST', url = '/v1/manage/funnels') => {
        const res = await call(org.jwt, method, url, method === 'POST' ? { site_id: org.site_id, ...payload } : payload);
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field } });
      };
      await bad({ name: 'x', steps: ['/cart'] }, 'steps');
      await bad({ name: 'x', steps: Array.from({ length: 11 }, (_, i) => `/p${i}`) }, 'steps');
      await bad({ name: 'x', steps: ['/cart', '  '] }, 'steps');
      await bad({ name: 'x', steps: ['/cart', '/a b'] }, 'steps');
      await bad({ name: 'x', steps: ['/cart', '/checkout'], window_minutes: 0 }, 'window_minutes');
      await bad({ name: 'x', steps: ['/cart', '/checkout'], window_minutes: 10_081 }, 'window_minutes');
      await bad({ name: '   ', steps: ['/cart', '/checkout'] }, 'name');
      await bad({ steps: ['/cart', '/checkout'] }, 'name');
      const f = (await call(org.jwt, 'POST', '/v1/manage/funnels', { site_id: org.site_id, name: 'ok', steps: ['/a', '/b'] })).json().data;
      await bad({ steps: ['/a'] }, 'steps', 'PATCH', `/v1/manage/funnels/${f.id}`);
      await bad({ steps: ['/a', ''] }, 'steps.1', 'PATCH', `/v1/manage/funnels/${f.id}`);
      const empty = await call(org.jwt, 'PATCH', `/v1/manage/funnels/${f.id}`, {});
      expect(empty.statusCode).toBe(400);
      const notUuid = await call(org.jwt, 'PATCH', '/v1/manage/funnels/nope', { name: 'y' });
      expect(notUuid.json().error).toMatchObject({ code: 'invalid_uuid', details: { field: 'id' } });
      // Nothing written by a refused request.
      expect((await call(org.jwt, 'GET', '/v1/manage/funnels?site_id=' + org.site_id)).json().data.funnels.map((x: { name: string; steps: string[] }) => [x.name, x.steps])).toEqual([['ok', ['/a', '/b']]]);
    });

    it('viewers read, admins write; another org\'s funnel is 404', async () => {
      const org = await h.org('Roles');
      const other = await h.org('Other');
      const viewer = await h.user(org, 'viewer');
      const member = await h.user(org, 'member');
      const admin = await h.user(org, 'admin');
      const body = { site_id: org.site_id, name: 'Roles', steps: ['/a', 'b'] };
      expect((await call(viewer.jwt, 'POST', '/v1/manage/funnels', body)).json().error.code).toBe('insufficient_role');
      expect((await call(member.jwt, 'POST', '/v1/manage/funnels', body)).json().error.code).toBe('insufficient_role');
      const made = await call(admin.jwt, 'POST', '/v1/manage/funnels', body);
      expect(made.statusCode, made.body).toBe(201);
      const f = made.json().data;
      expect((await call(viewer.jwt, 'GET', `/v1/manage/funnels?site_id=${org.site_id}`)).json().data.funnels.map((x: { id: string }) => x.id)).toEqual([f.id]);
      for (const token of [other.jwt, other.keys.secret]) {
        expect((await call(token, 'PATCH', `/v1/manage/funnels/${f.id}`, { name: 'mine' })).statusCode).toBe(404);
        expect((await call(token, 'DELETE', `/v1/manage/funnels/${f.id}`)).statusCode).toBe(404);
        expect((await call(token, 'GET', `/v1/manage/funnels?site_id=${org.site_id}`)).statusCode).toBe(404);
      }
      expect((await call(other.keys.secret, 'GET', '/v1/manage/funnels')).json().data.funnels).toEqual([]);
    });
  });
});
