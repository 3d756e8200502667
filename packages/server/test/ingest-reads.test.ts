// The read routes over ingested data, fed through the real ingest route: element and page
// heatmaps, flows, the friction journey map (weights computed by hand from DOMAIN.md's
// registry, section 5b's rules, the spec's bounds and caps) and the session timeline with its
// narrative. Both dialects.
import { describe, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { describeSignal, type NarrativeEvent } from '../src/features/sessions/narrative.ts';
import {
  CHROME_WINDOWS_UA, DAY, expectInvalid, hex32, MIN, query, queryOk, SEC, send, sendImport, type Ev, type Org,
} from './helpers/ingest-kit.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** One session: pageviews [page, at] and signals [page, type, confidence, at, element?], one batch. */
function visitEvents(views: [string, number][], signals: [string, string, number, number, string?][]): Ev[] {
  return [
    ...views.map(([page, ts]) => ({ type: 'pageview', ts, page })),
    ...signals.map(([page, signal_type, confidence, ts, element]) => ({ type: 'signal', ts, page, signal_type, confidence, element: element ?? `#${signal_type}` })),
  ];
}

eachDialect('ingest read routes', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  const key = (org: Org) => org.keys.secret;

  describe('heatmaps', () => {
    it.skipIf(skip)('element and page heatmaps return exactly the expected fractions, newest first, from click signals only', async () => {
      const org = await h.org('Heat');
      const now = h.clock.now();
      const t = (s: number) => now - 100 * SEC + s * SEC;
      await send(h, org, hex32(), [
        { type: 'pageview', ts: t(0), page: '/checkout' },
        { type: 'signal', ts: t(10), page: '/checkout', signal_type: 'rage_click', element: 'button.pay', hx: 512, hy: 480, vx: 724, vy: 312 },
        { type: 'signal', ts: t(20), page: '/checkout', signal_type: 'dead_click', element: 'a.terms', click_dx: -12, click_dy: 4, el_w: 120, el_h: 40, vx: 1500, vy: -20 },
        { type: 'signal', ts: t(30), page: '/checkout', signal_type: 'disabled_element_attempt', element: 'button.submit', hx: 1200, hy: -40 },
        // Not a heatmap type, even with coordinates.
        { type: 'signal', ts: t(40), page: '/checkout', signal_type: 'form_friction', element: 'input#email', hx: 100, hy: 100, vx: 100, vy: 100 },
        // The element could not be identified: a page point without `el`.
        { type: 'signal', ts: t(50), page: '/checkout', signal_type: 'rage_click', hx: 10, hy: 10, vx: 300, vy: 400 },
        { type: 'signal', ts: t(60), page: '/checkout', signal_type: 'dead_click', element: 'button.pay', hx: 0, hy: 1000, vx: 0, vy: 0 },
        // Another page.
        { type: 'signal', ts: t(70), page: '/cart', signal_type: 'rage_click', element: 'button.pay', hx: 900, hy: 900, vx: 900, vy: 900 },
        // A selector holding an email is stored redacted.
        { type: 'signal', ts: t(80), page: '/account', signal_type: 'dead_click', element: 'a[href="mailto:ann@example.com"]', hx: 250, hy: 750 },
      ]);
      // Older than 30 days: outside the heatmap window; 29 days: inside.
      await sendImport(h, org, hex32(), [
        { type: 'signal', ts: now - 31 * DAY, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', hx: 1, hy: 1, vx: 1, vy: 1 },
        { type: 'signal', ts: now - 29 * DAY, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', hx: 2, hy: 2, vx: 2, vy: 2 },
      ]);

      const el = (selector: string, page = '/checkout') =>
        queryOk(h, key(org), `/v1/query/element-heatmap?page=${encodeURIComponent(page)}&selector=${encodeURIComponent(selector)}`);
      expect(await el('button.pay')).toEqual({
        page: '/checkout', selector: 'button.pay', count: 3,
        points: [{ rx: 0, ry: 1, signal: 'dead_click' }, { rx: 0.512, ry: 0.48, signal: 'rage_click' }, { rx: 0.002, ry: 0.002, signal: 'rage_click' }],
      });
      expect(await el('a.terms')).toEqual({ page: '/checkout', selector: 'a.terms', count: 1, points: [{ rx: 0.4, ry: 0.6, signal: 'dead_click' }] });
      expect(await el('button.submit')).toEqual({ page: '/checkout', selector: 'button.submit', count: 1, points: [{ rx: 1, ry: 0, signal: 'disabled_element_attempt' }] });
      expect(await el('input#email')).toEqual({ page: '/checkout', selector: 'input#email', count: 0, points: [] });
      // The selector parameter is cleaned like stored selectors, so the raw one still finds its points.
      expect(await el('a[href="mailto:ann@example.com"]', '/account')).toEqual({
        page: '/account', selector: 'a[href="mailto:[redacted]"]', count: 1, points: [{ rx: 0.25, ry: 0.75, signal: 'dead_click' }],
      });
      // The page parameter is normalized like ingest.
      expect((await el('button.pay', '/cart/?tab=1')).points).toEqual([{ rx: 0.9, ry: 0.9, signal: 'rage_click' }]);

      const page = await queryOk(h, key(org), '/v1/query/page-heatmap?page=/checkout');
      expect(page).toEqual({
        page: '/checkout', count: 5,
        points: [
          { vx: 0, vy: 0, signal: 'dead_click', el: 'button.pay' },
          { vx: 0.3, vy: 0.4, signal: 'rage_click' },
          { vx: 1, vy: 0, signal: 'dead_click', el: 'a.terms' },
          { vx: 0.724, vy: 0.312, signal: 'rage_click', el: 'button.pay' },
          { vx: 0.002, vy: 0.002, signal: 'rage_click', el: 'button.pay' },
        ],
      });
      expect(Object.keys(page.points[1])).not.toContain('el');
      expect(await queryOk(h, key(org), '/v1/query/page-heatmap?page=/nowhere')).toEqual({ page: '/nowhere', count: 0, points: [] });
    });

    it.skipIf(skip)('element heatmaps stop at 300 points and page heatmaps at 500, keeping the most recent', async () => {
      const org = await h.org('Heat');
      const now = h.clock.now();
      const sid = hex32();
      // Signal i at base + i * 100 ms with hx = vx = i: the coordinate says how recent the point is.
      const all: Ev[] = Array.from({ length: 510 }, (_, i) => ({
        type: 'signal', ts: now - 60 * SEC + i * 100, page: '/cap', signal_type: 'rage_click', element: 'button.cap', hx: i, hy: 1000 - i, vx: i, vy: i,
      }));
      for (let i = 0; i < all.length; i += 250) await send(h, org, sid, all.slice(i, i + 250));

      const el = await queryOk(h, key(org), '/v1/query/element-heatmap?page=/cap&selector=button.cap');
      expect(el.count).toBe(300);
      expect(el.points).toEqual(Array.from({ length: 300 }, (_, k) => ({ rx: (509 - k) / 1000, ry: (1000 - (509 - k)) / 1000, signal: 'rage_click' })));
      const page = await queryOk(h, key(org), '/v1/query/page-heatmap?page=/cap');
      expect(page.count).toBe(500);
      expect(page.points).toEqual(Array.from({ length: 500 }, (_, k) => ({ vx: (509 - k) / 1000, vy: (509 - k) / 1000, signal: 'rage_click', el: 'button.cap' })));
    });

    it.skipIf(skip)('heatmap parameters are required and validated', async () => {
      const org = await h.org('Heat');
      await expectInvalid(h, key(org), '/v1/query/element-heatmap?page=/checkout', 'selector');
      await expectInvalid(h, key(org), '/v1/query/element-heatmap?selector=a', 'page');
      await expectInvalid(h, key(org), '/v1/query/element-heatmap?page=checkout&selector=a', 'page');
      await expectInvalid(h, key(org), '/v1/query/page-heatmap', 'page');
      await expectInvalid(h, key(org), '/v1/query/page-heatmap?page=no-slash', 'page');
    });
  });

  describe('flows', () => {
    it.skipIf(skip)('page-to-page edges count transitions and distinct sessions, reloads included', async () => {
      const org = await h.org('Flows');
      const now = h.clock.now();
      const t = (s: number) => now - 30 * MIN + s * SEC;
      await send(h, org, hex32(), visitEvents([['/a', t(0)], ['/b', t(10)], ['/a', t(20)], ['/a', t(30)]], []));
      await send(h, org, hex32(), visitEvents([['/a', t(40)], ['/b', t(50)]], []));
      await send(h, org, hex32(), visitEvents([['/b', t(60)], ['/c', t(70)]], []));
      await send(h, org, hex32(), visitEvents([['/a', t(80)]], []));
      await send(h, org, hex32(), visitEvents([['/c', t(90)], ['/b', t(100)], ['/c', t(110)], ['/b', t(120)]], []));
      // Eight days ago: outside the default 7-day window.
      await sendImport(h, org, hex32(), visitEvents([['/a', now - 8 * DAY], ['/z', now - 8 * DAY + 10 * SEC]], []));

      const flows = await queryOk(h, key(org), '/v1/query/flows');
      expect(flows).toEqual({
        site_id: org.site_id, days: 7, sessions_analyzed: 4,
        edges: [
          { from: '/a', to: '/b', transitions: 2, sessions: 2 },
          { from: '/b', to: '/c', transitions: 2, sessions: 2 },
          { from: '/c', to: '/b', transitions: 2, sessions: 1 },
          { from: '/a', to: '/a', transitions: 1, sessions: 1 },
          { from: '/b', to: '/a', transitions: 1, sessions: 1 },
        ],
      });
      const wider = await queryOk(h, key(org), '/v1/query/flows?days=9');
      expect(wider.sessions_analyzed).toBe(5);
      expect(wider.edges).toContainEqual({ from: '/a', to: '/z', transitions: 1, sessions: 1 });
      expect(wider.edges).toHaveLength(6);
      expect((await queryOk(h, key(org), '/v1/query/flows?limit=2')).edges).toEqual(flows.edges.slice(0, 2));
      await expectInvalid(h, key(org), '/v1/query/flows?days=0', 'days');
      await expectInvalid(h, key(org), '/v1/query/flows?days=91', 'days');
      await expectInvalid(h, key(org), '/v1/query/flows?limit=0', 'limit');
    });
  });

  describe('friction journey map', () => {
    /**
     * Nine multi-page sessions. Registry weights: rage_click 25, dead_click 12, form_friction 14,
     * error_encounter 20, u_turn_navigation 18 (tiers 1-2: edge decorators); thrash_cursor
     * (tier 3), value_collapse_downgrade (revenue) and unknown types decorate nothing.
     */
    async function scenario(org: Org) {
      const T = h.clock.now() - 20 * MIN;
      const t = (s: number) => T + s * SEC;
      const sids: Record<string, string> = {};
      const visit = async (label: string, views: [string, number][], signals: [string, string, number, number, string?][]) => {
        sids[label] = hex32();
        await send(h, org, sids[label], visitEvents(views.map(([p, s]) => [p, t(s)]), signals.map(([p, ty, cf, s, el]) => [p, ty, cf, t(s), el])));
      };
      await visit('F1', [['/cart', 0], ['/checkout', 10], ['/checkout', 30], ['/done', 40]], [
        ['/cart', 'rage_click', 0.8, 5, 'button.add'],
        ['/checkout', 'dead_click', 1, 12, 'a.pay'],
        ['/checkout', 'thrash_cursor', 1, 15],
        ['/cart', 'rage_click', 1, 20, 'button.add'], // on /cart while the user is on /checkout: qualifies nowhere
        ['/checkout', 'form_friction', 0.5, 35, 'input#card'],
        ['/done', 'error_encounter', 1, 45, 'div.error'],
      ]);
      await visit('F2', [['/cart', 100], ['/checkout', 110]], [
        ['/cart', 'rage_click', 0.9, 103, 'button.add'], ['/cart', 'rage_click', 0.9, 104, 'button.add'], ['/checkout', 'dead_click', 0.6, 115, 'a.pay'],
      ]);
      await visit('F3', [['/home', 200], ['/pricing', 210]], [['/pricing', 'u_turn_navigation', 0.25, 212]]);
      await visit('F4', [['/home', 300], ['/pricing', 310]], [
        ['/home', 'thrash_cursor', 1, 305], ['/pricing', 'value_collapse_downgrade', 1, 312], ['/pricing', 'my_custom_signal', 1, 313],
      ]);
      // 25 x 0.018 twice: 0.45 + 0.45 = 0.9 when rounded after summing.
      await visit('F5', [['/a', 400], ['/b', 410]], [['/a', 'rage_click', 0.018, 402], ['/a', 'rage_click', 0.018, 403]]);
      await visit('F6', [['/x', 500], ['/y', 510]], [['/x', 'dead_click', 1, 505]]);
      await visit('F7', [['/p', 600], ['/q', 610]], [['/q', 'dead_click', 1, 615]]);
      await visit('F8a', [['/m', 700], ['/n', 710]], [['/m', 'dead_click', 0.5, 705]]);
      await visit('F8b', [['/m', 800], ['/n', 810]], [['/n', 'dead_click', 0.5, 815]]);
      return { t, sids };
    }

    const friction = (org: Org, params = '') => queryOk(h, key(org), `/v1/query/journeys/friction${params}`);
    const brief = (edges: { from: string; to: string; friction_weight: number; sessions: number; signals: Record<string, number> }[]) =>
      edges.map((e) => ({ from: e.from, to: e.to, friction_weight: e.friction_weight, sessions: e.sessions, signals: e.signals }));

    it.skipIf(skip)('edges carry hand-computed weights, sessions and signal counts, sorted by weight, then sessions, then pages', async () => {
      const org = await h.org('Journeys');
      const { t, sids } = await scenario(org);
      const data = await friction(org);
      expect(data.site_id).toBe(org.site_id);
      expect(data.sessions_analyzed).toBe(9);
      expect(brief(data.edges)).toEqual([
        // F1: 25 x 0.8 + 12 = 32; F2: 22.5 + 22.5 + 12 x 0.6 = 52.2; 84.2.
        { from: '/cart', to: '/checkout', friction_weight: 84.2, sessions: 2, signals: { rage_click: 3, dead_click: 2 } },
        // 14 x 0.5 on the source visit + 20 on the destination.
        { from: '/checkout', to: '/done', friction_weight: 27, sessions: 1, signals: { form_friction: 1, error_encounter: 1 } },
        // The reload: 12 during the first visit of /checkout + 7 during the second.
        { from: '/checkout', to: '/checkout', friction_weight: 19, sessions: 1, signals: { dead_click: 1, form_friction: 1 } },
        // Three edges of 12: two sessions first, then by `from`.
        { from: '/m', to: '/n', friction_weight: 12, sessions: 2, signals: { dead_click: 2 } },
        { from: '/p', to: '/q', friction_weight: 12, sessions: 1, signals: { dead_click: 1 } },
        { from: '/x', to: '/y', friction_weight: 12, sessions: 1, signals: { dead_click: 1 } },
        // 18 x 0.25; F4's thrash_cursor, revenue and unknown signals decorate nothing.
        { from: '/home', to: '/pricing', friction_weight: 4.5, sessions: 1, signals: { u_turn_navigation: 1 } },
      ]);
      // Examples: the qualifying signals of the edge, newest first.
      expect(data.edges[0].examples).toEqual([
        { session_id: sids.F2, page: '/checkout', signal_type: 'dead_click', element_selector: 'a.pay', occurred_at: iso(t(115)) },
        { session_id: sids.F2, page: '/cart', signal_type: 'rage_click', element_selector: 'button.add', occurred_at: iso(t(104)) },
        { session_id: sids.F2, page: '/cart', signal_type: 'rage_click', element_selector: 'button.add', occurred_at: iso(t(103)) },
        { session_id: sids.F1, page: '/checkout', signal_type: 'dead_click', element_selector: 'a.pay', occurred_at: iso(t(12)) },
        { session_id: sids.F1, page: '/cart', signal_type: 'rage_click', element_selector: 'button.add', occurred_at: iso(t(5)) },
      ]);
      expect(data.edges[6].examples).toEqual([
        { session_id: sids.F3, page: '/pricing', signal_type: 'u_turn_navigation', element_selector: '#u_turn_navigation', occurred_at: iso(t(212)) },
      ]);
    });

    it.skipIf(skip)('min_friction_weight filters on the rounded weight; signal_type restricts to one type', async () => {
      const org = await h.org('Journeys');
      await scenario(org);
      const pairs = (edges: { from: string; to: string; friction_weight: number }[]) => edges.map((e) => `${e.from}>${e.to}:${e.friction_weight}`);

      const all = await friction(org, '?min_friction_weight=0');
      expect(pairs(all.edges)).toEqual([
        '/cart>/checkout:84.2', '/checkout>/done:27', '/checkout>/checkout:19', '/m>/n:12', '/p>/q:12', '/x>/y:12', '/home>/pricing:4.5', '/a>/b:0.9',
      ]);
      expect(pairs((await friction(org, '?min_friction_weight=0.9')).edges).at(-1)).toBe('/a>/b:0.9');
      expect(pairs((await friction(org, '?min_friction_weight=12')).edges)).toEqual(pairs(all.edges).slice(0, 6));
      expect(pairs((await friction(org, '?min_friction_weight=12.1')).edges)).toEqual(pairs(all.edges).slice(0, 3));
      expect((await friction(org, '?min_friction_weight=1000')).edges).toEqual([]);

      // Only dead clicks: F1 12 + F2 7.2 on /cart -> /checkout; F1's first /checkout visit on the reload.
      expect(brief((await friction(org, '?signal_type=dead_click')).edges)).toEqual([
        { from: '/cart', to: '/checkout', friction_weight: 19.2, sessions: 2, signals: { dead_click: 2 } },
        { from: '/m', to: '/n', friction_weight: 12, sessions: 2, signals: { dead_click: 2 } },
        { from: '/checkout', to: '/checkout', friction_weight: 12, sessions: 1, signals: { dead_click: 1 } },
        { from: '/p', to: '/q', friction_weight: 12, sessions: 1, signals: { dead_click: 1 } },
        { from: '/x', to: '/y', friction_weight: 12, sessions: 1, signals: { dead_click: 1 } },
      ]);
      // 20 + 22.5 + 22.5; F5's 0.9 stays below the default minimum.
      expect(brief((await friction(org, '?signal_type=rage_click')).edges)).toEqual([
        { from: '/cart', to: '/checkout', friction_weight: 65, sessions: 2, signals: { rage_click: 3 } },
      ]);
      // A tier-3 type never decorates an edge, even when asked for.
      expect((await friction(org, '?signal_type=thrash_cursor&min_friction_weight=0')).edges).toEqual([]);
    });

    it.skipIf(skip)('limit picks the most recently active sessions; weights follow the site\'s custom weights', async () => {
      const org = await h.org('Journeys');
      await scenario(org);
      const one = await friction(org, '?limit=1');
      expect(one.sessions_analyzed).toBe(1);
      expect(brief(one.edges)).toEqual([{ from: '/m', to: '/n', friction_weight: 6, sessions: 1, signals: { dead_click: 1 } }]);
      const two = await friction(org, '?limit=2');
      expect(brief(two.edges)).toEqual([{ from: '/m', to: '/n', friction_weight: 12, sessions: 2, signals: { dead_click: 2 } }]);

      const patch = await h.app.inject({ method: 'PATCH', url: '/v1/manage/sdk-config/production', headers: bearer(org.keys.secret), payload: { signal_weights: { dead_click: 30 } } });
      expect(patch.statusCode, patch.body).toBe(200);
      // dead_click now 30: F1 30 + F2 30 x 0.6 = 48 on /cart -> /checkout.
      expect(brief((await friction(org, '?signal_type=dead_click')).edges).slice(0, 2)).toEqual([
        { from: '/cart', to: '/checkout', friction_weight: 48, sessions: 2, signals: { dead_click: 2 } },
        { from: '/m', to: '/n', friction_weight: 30, sessions: 2, signals: { dead_click: 2 } },
      ]);
    });

    it.skipIf(skip)('at most 100 edges and 5 examples per edge', async () => {
      const org = await h.org('Journeys');
      const T = h.clock.now() - 30 * MIN;
      // One edge with seven rage clicks (weight 175), in the oldest session.
      const listSid = hex32();
      await send(h, org, listSid, visitEvents([['/list', T], ['/item', T + 10 * SEC]],
        Array.from({ length: 7 }, (_, i) => ['/list', 'rage_click', 1, T + (i + 1) * SEC, `li.n${i + 1}`] as [string, string, number, number, string])));
      // 105 sessions with one edge each: 25 x k / 125 = 0.2 k, session k more recent than k - 1.
      for (let k = 1; k <= 105; k++) {
        const at = T + 60 * SEC + k * 2 * SEC;
        await send(h, org, hex32(), visitEvents([[`/e${k}/from`, at], [`/e${k}/to`, at + SEC]], [[`/e${k}/from`, 'rage_click', k / 125, at + 500]]));
      }
      const data = await friction(org, '?min_friction_weight=0');
      expect(data.sessions_analyzed).toBe(106);
      expect(data.edges).toHaveLength(100);
      expect(data.edges[0]).toMatchObject({ from: '/list', to: '/item', friction_weight: 175, sessions: 1, signals: { rage_click: 7 } });
      expect(data.edges[0].examples).toEqual([7, 6, 5, 4, 3].map((n) => ({
        session_id: listSid, page: '/list', signal_type: 'rage_click', element_selector: `li.n${n}`, occurred_at: iso(T + n * SEC),
      })));
      // Then k = 105 down to 7 (99 edges): the lightest six are cut.
      expect(data.edges.slice(1).map((e: { from: string; friction_weight: number }) => [e.from, e.friction_weight]))
        .toEqual(Array.from({ length: 99 }, (_, i) => [`/e${105 - i}/from`, Math.round(2 * (105 - i)) / 10]));
      for (const edge of data.edges) expect(edge.examples.length).toBeLessThanOrEqual(5);

      const top = await friction(org, '?limit=3');
      expect(top.sessions_analyzed).toBe(3);
      expect(top.edges.map((e: { from: string; friction_weight: number }) => [e.from, e.friction_weight])).toEqual([['/e105/from', 21], ['/e104/from', 20.8], ['/e103/from', 20.6]]);
      expect((await friction(org, '?min_friction_weight=20')).edges.map((e: { from: string }) => e.from))
        .toEqual(['/list', '/e105/from', '/e104/from', '/e103/from', '/e102/from', '/e101/from', '/e100/from']);
    });

    it.skipIf(skip)('parameters out of bounds are 400 invalid_input naming the parameter', async () => {
      const org = await h.org('Journeys');
      const base = '/v1/query/journeys/friction';
      for (const v of ['0', '1001', '1.5', 'many']) await expectInvalid(h, key(org), `${base}?limit=${v}`, 'limit');
      for (const v of ['-1', '1000.5', 'heavy']) await expectInvalid(h, key(org), `${base}?min_friction_weight=${v}`, 'min_friction_weight');
      await expectInvalid(h, key(org), `${base}?signal_type=Rage-Click`, 'signal_type');
      expect((await friction(org, '?limit=1000&min_friction_weight=1000')).edges).toEqual([]);
      expect(await friction(org, '?limit=1')).toEqual({ site_id: org.site_id, sessions_analyzed: 0, edges: [] });
    });
  });

  describe('session timeline', () => {
    async function session(org: Org, converted: boolean) {
      const B = h.clock.now() - 5 * MIN;
      const sid = hex32();
      const vid = hex32();
      await send(h, org, sid, [
        { type: 'pageview', ts: B, page: '/pricing', referrer: 'https://www.google.com/search?q=ducks' },
        { type: 'pageview', ts: B + 10 * SEC, page: '/checkout', referrer_page: '/pricing' },
        { type: 'signal', ts: B + 15 * SEC, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.9, count: 4, duration_ms: 1200 },
        { type: 'signal', ts: B + 20 * SEC, page: '/checkout', signal_type: 'dead_click', element: 'a.terms', label: 'Terms' },
        { type: 'pageview', ts: B + 40 * SEC, page: '/orders/8812/items' },
        { type: 'track', ts: B + 50 * SEC, page: '/orders/8812/items', name: converted ? 'checkout_completed' : 'viewed_receipt', props: { amount_cents: 9900 } },
      ], { vid, meta: { ua: CHROME_WINDOWS_UA, viewport_w: 800 } });
      return { B, sid, vid };
    }

    it.skipIf(skip)('returns the session, every event in order and a narrative of what happened', async () => {
      const org = await h.org('Sessions');
      const { B, sid, vid } = await session(org, true);
      const data = await queryOk(h, key(org), `/v1/query/session?session_id=${sid.toUpperCase()}`);
      expect(data.session).toEqual({
        session_id: sid, visitor_id: vid, user_ref: null, environment: 'production',
        started_at: iso(B), ended_at: iso(B + 50 * SEC), duration_ms: 50_000,
        entry_page: '/pricing', exit_page: '/orders/:id/items', pages: ['/pricing', '/checkout', '/orders/:id/items'],
        page_count: 3, event_count: 6, signal_count: 2, signal_counts: { rage_click: 1, dead_click: 1 },
        device_type: 'desktop', browser: 'Chrome', os: 'Windows', viewport_bucket: 'md', app_version: null,
        referrer_host: 'www.google.com', converted: true,
      });
      expect(data.events.map(({ id, ...e }: { id: string }) => { expect(id).toEqual(expect.any(String)); return e; })).toEqual([
        { type: 'pageview', page: '/pricing', occurred_at: iso(B) },
        { type: 'pageview', page: '/checkout', occurred_at: iso(B + 10 * SEC), referrer_page: '/pricing' },
        { type: 'signal', page: '/checkout', occurred_at: iso(B + 15 * SEC), signal_type: 'rage_click', element_selector: 'button.pay', label: 'Pay now', confidence: 0.9, props: { count: 4, duration_ms: 1200 } },
        { type: 'signal', page: '/checkout', occurred_at: iso(B + 20 * SEC), signal_type: 'dead_click', element_selector: 'a.terms', label: 'Terms', confidence: 1 },
        { type: 'pageview', page: '/orders/:id/items', occurred_at: iso(B + 40 * SEC) },
        { type: 'track', page: '/orders/:id/items', occurred_at: iso(B + 50 * SEC), name: 'checkout_completed', props: { amount_cents: 9900 } },
      ]);

      // The narrative: arrival, each page with its time, each struggle with its label, how it ended.
      const text: string = data.narrative;
      const order = ['/pricing', 'www.google.com', '/checkout', "'Pay now'", '4 times in 1.2 s', "'Terms'", '/orders/:id/items'];
      const at = order.map((s) => text.indexOf(s));
      expect(at.every((i) => i >= 0), text).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(text).toContain('desktop');
      expect(text).toMatch(/\/pricing \(10 s\)/); // 10 s on /pricing
      expect(text).toMatch(/\/checkout \(30 s\)/); // 30 s on /checkout
      expect(text).toContain('the user completed checkout.');
      const last = text.slice(text.lastIndexOf('Left'));
      expect(last).toContain('/orders/:id/items');
      expect(last).toContain('50 s');
      expect(last).toMatch(/convert/);
      // Deterministic.
      expect((await queryOk(h, key(org), `/v1/query/session?session_id=${sid}`)).narrative).toBe(text);

      // The same path without a conversion ends differently.
      const other = await session(org, false);
      const plain = (await queryOk(h, key(org), `/v1/query/session?session_id=${other.sid}`));
      expect(plain.session.converted).toBe(false);
      const otherLast: string = plain.narrative.slice(plain.narrative.lastIndexOf('Left'));
      expect(otherLast).toMatch(/(without|not|no) convert/);
      expect(last).not.toMatch(/(without|not|no) convert/);
    });

    it.skipIf(skip)('a malformed session id is 400, an unknown one or another site\'s is 404', async () => {
      const org = await h.org('Sessions');
      const stranger = await h.org('Sessions');
      const { sid } = await session(org, false);
      await expectInvalid(h, key(org), '/v1/query/session?session_id=xyz', 'session_id');
      await expectInvalid(h, key(org), `/v1/query/session?session_id=${sid}0`, 'session_id');
      for (const url of [`/v1/query/session?session_id=${hex32()}`, `/v1/query/session?session_id=${sid}`]) {
        const token = url.endsWith(sid) ? key(stranger) : key(org);
        const res = await query(h, token, url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ data: null, error: { code: 'not_found', status: 404 } });
      }
      // Naming the other org's site explicitly does not help.
      const res = await query(h, key(stranger), `/v1/query/session?session_id=${sid}&site_id=${org.site_id}`);
      expect(res.statusCode).toBe(404);
    });
  });
});

// The narrative's words for each detector of DOMAIN.md section 2 (pure: no store).
describe('session narrative wording', () => {
  const say = (signal_type: string, fields: Partial<NarrativeEvent> = {}) => describeSignal({
    type: 'signal', page: '/cart', occurred_at: 0, name: null, signal_type, element: null, label: null, props: null, ...fields,
  });

  it('words the newer detectors in plain language, with the element, counts and times they carry', () => {
    expect(say('jerky_scrolling')).toBe('scrolled up and down the page without settling');
    expect(say('reload_retry', { props: { duration_ms: 12_000 } })).toBe('reloaded the page 12 s after it loaded');
    expect(say('reload_retry')).toBe('reloaded the page soon after it loaded');
    expect(say('load_abandonment', { props: { duration_ms: 4200 } })).toBe('left before the page finished loading, after waiting 4.2 s');
    expect(say('query_thrashing', { element: 'input#q', label: 'Search', props: { count: 3 } })).toBe('tried 3 different searches in quick succession');
    expect(say('layout_shift_rage', { element: '#continue', label: 'Continue', props: { count: 3, duration_ms: 600 } }))
      .toBe("clicked 'Continue' (#continue) 3 times in 0.6 s right after the page moved it");
    expect(say('thrash_cursor', { element: '#pro', label: 'Choose Pro' })).toBe("moved the pointer back and forth over 'Choose Pro' (#pro) without settling");
    expect(say('thrash_cursor')).toBe('moved the pointer back and forth without settling');
    expect(say('dead_end_submit', { element: '#send', label: 'Send' })).toBe("submitted 'Send' (#send) and got no response");
    expect(say('form_validation_loop', { element: 'input#email', label: 'Email' })).toBe("hit the same validation error on 'Email' (input#email) again and again");
  });
});
