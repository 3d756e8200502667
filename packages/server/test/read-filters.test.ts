// The optional `device` and `from`/`to` filters of the page and element heatmaps, flows and
// the friction journey map (issue 14): sessions from three device classes and four ages,
// fed through the real ingest route, so each filter visibly changes the answer; bad values
// are 400 invalid_input naming the parameter; no filter keeps today's answer. Both dialects.
import { describe, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { CHROME_WINDOWS_UA, DAY, expectInvalid, hex32, MIN, postIngest, queryOk, SEC, send, type Ev, type Org } from './helpers/ingest-kit.ts';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const UA = { desktop: CHROME_WINDOWS_UA, mobile: IPHONE_UA, tablet: IPAD_UA } as const;
type Device = keyof typeof UA;

const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('read filters', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  /** One session from one device class, `ago` ms before now: live within a day, an import (original times kept) before. */
  async function session(org: Org, device: Device, ago: number, events: (at: (s: number) => number) => Ev[]) {
    const start = h.clock.now() - ago;
    const evs = events((s) => start + s * SEC);
    const meta = { ua: UA[device] };
    if (ago <= DAY) return send(h, org, hex32(), evs, { meta });
    const res = await postIngest(h, { sid: hex32(), ts: h.clock.now(), import: true, meta, events: evs }, bearer(org.keys.secret));
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ accepted: evs.length, rejected: 0 });
  }

  const get = (org: Org, path: string, params: Record<string, string | number> = {}) => {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    return queryOk(h, org.keys.secret, `${path}${path.includes('?') ? '&' : '?'}${qs}`);
  };
  const ago = (ms: number) => iso(h.clock.now() - ms);

  describe('heatmaps', () => {
    /** One click on button.pay per session; the coordinate tells which session it came from. */
    async function clicks(org: Org) {
      const click = (signal_type: string, c: number) => (at: (s: number) => number) => [
        { type: 'pageview', ts: at(0), page: '/checkout' },
        { type: 'signal', ts: at(5), page: '/checkout', signal_type, element: 'button.pay', hx: c, hy: c, vx: c, vy: c },
      ];
      await session(org, 'mobile', HOUR, click('dead_click', 100));
      await session(org, 'desktop', 2 * DAY, click('rage_click', 200));
      await session(org, 'tablet', 10 * DAY, click('rage_click', 300));
      // Outside the default 30 days, inside the 90 a window may reach.
      await session(org, 'desktop', 40 * DAY, click('dead_click', 400));
    }
    const page = async (org: Org, params: Record<string, string> = {}) =>
      (await get(org, '/v1/query/page-heatmap?page=/checkout', params)).points.map((p: { vx: number }) => p.vx * 1000);
    const element = async (org: Org, params: Record<string, string> = {}) =>
      (await get(org, '/v1/query/element-heatmap?page=/checkout&selector=button.pay', params)).points.map((p: { rx: number }) => p.rx * 1000);

    it('device and from/to pick the points of those sessions and that window; no filter is the last 30 days', async () => {
      const org = await h.org('Filters');
      await clicks(org);
      for (const heatmap of [page, element]) {
        expect(await heatmap(org)).toEqual([100, 200, 300]);
        expect(await heatmap(org, { device: 'desktop' })).toEqual([200]);
        expect(await heatmap(org, { device: 'mobile' })).toEqual([100]);
        expect(await heatmap(org, { device: 'tablet' })).toEqual([300]);
        expect(await heatmap(org, { from: ago(45 * DAY) })).toEqual([100, 200, 300, 400]);
        expect(await heatmap(org, { from: ago(45 * DAY), device: 'desktop' })).toEqual([200, 400]);
        expect(await heatmap(org, { from: ago(45 * DAY), to: ago(5 * DAY) })).toEqual([300, 400]);
        // `to` alone: the 30 days before it.
        expect(await heatmap(org, { to: ago(5 * DAY) })).toEqual([300]);
        expect(await heatmap(org, { from: ago(3 * DAY), to: ago(DAY) })).toEqual([200]);
      }
      // The whole answer keeps its shape.
      expect(await get(org, '/v1/query/page-heatmap?page=/checkout', { device: 'mobile' })).toEqual({
        page: '/checkout', count: 1, points: [{ vx: 0.1, vy: 0.1, signal: 'dead_click', el: 'button.pay' }],
      });
    });
  });

  describe('flows', () => {
    async function journeys(org: Org) {
      const hop = (to: string) => (at: (s: number) => number) => [{ type: 'pageview', ts: at(0), page: '/a' }, { type: 'pageview', ts: at(10), page: to }];
      await session(org, 'desktop', HOUR, hop('/b'));
      await session(org, 'mobile', HOUR, hop('/c'));
      await session(org, 'tablet', 3 * DAY, hop('/d'));
      // Outside the default 7 days.
      await session(org, 'desktop', 20 * DAY, hop('/e'));
    }
    const targets = async (org: Org, params: Record<string, string> = {}) =>
      (await get(org, '/v1/query/flows', params)).edges.map((e: { to: string }) => e.to).sort();

    it('device and from/to pick the sessions; `days` stays the default span before `to`', async () => {
      const org = await h.org('Filters');
      await journeys(org);
      expect(await targets(org)).toEqual(['/b', '/c', '/d']);
      expect(await targets(org, { device: 'mobile' })).toEqual(['/c']);
      expect(await targets(org, { device: 'desktop' })).toEqual(['/b']);
      expect(await targets(org, { from: ago(30 * DAY) })).toEqual(['/b', '/c', '/d', '/e']);
      expect(await targets(org, { from: ago(30 * DAY), device: 'desktop' })).toEqual(['/b', '/e']);
      expect(await targets(org, { from: ago(30 * DAY), to: ago(10 * DAY) })).toEqual(['/e']);
      // `to` alone: `days` (7) before it.
      expect(await targets(org, { to: ago(2 * DAY) })).toEqual(['/d']);
      expect(await targets(org, { to: ago(2 * DAY), days: '30' })).toEqual(['/d', '/e']);
      const data = await get(org, '/v1/query/flows', { device: 'tablet' });
      expect(data).toEqual({ site_id: org.site_id, days: 7, sessions_analyzed: 1, edges: [{ from: '/a', to: '/d', transitions: 1, sessions: 1 }] });
    });
  });

  describe('friction journey map', () => {
    async function struggles(org: Org) {
      const edge = (from: string, to: string) => (at: (s: number) => number) => [
        { type: 'pageview', ts: at(0), page: from }, { type: 'pageview', ts: at(10), page: to },
        { type: 'signal', ts: at(12), page: to, signal_type: 'dead_click', element: 'a.next' },
      ];
      await session(org, 'desktop', HOUR, edge('/cart', '/checkout'));
      await session(org, 'mobile', 2 * HOUR, edge('/x', '/y'));
      await session(org, 'tablet', 3 * DAY, edge('/p', '/q'));
      await session(org, 'desktop', 60 * DAY, edge('/m', '/n'));
    }
    const sources = async (org: Org, params: Record<string, string> = {}) =>
      (await get(org, '/v1/query/journeys/friction', params)).edges.map((e: { from: string }) => e.from).sort();

    it('device and from/to pick the sessions; without them every recent session counts, however old', async () => {
      const org = await h.org('Filters');
      await struggles(org);
      expect(await sources(org)).toEqual(['/cart', '/m', '/p', '/x']);
      expect(await sources(org, { device: 'desktop' })).toEqual(['/cart', '/m']);
      expect(await sources(org, { device: 'mobile' })).toEqual(['/x']);
      expect(await sources(org, { device: 'tablet' })).toEqual(['/p']);
      expect(await sources(org, { from: ago(7 * DAY) })).toEqual(['/cart', '/p', '/x']);
      // `to` alone has no start: every session before it.
      expect(await sources(org, { to: ago(DAY) })).toEqual(['/m', '/p']);
      expect(await sources(org, { from: ago(7 * DAY), to: ago(DAY) })).toEqual(['/p']);
      expect(await sources(org, { from: ago(7 * DAY), device: 'mobile' })).toEqual(['/x']);
      const data = await get(org, '/v1/query/journeys/friction', { device: 'tablet', limit: 1 });
      expect(data).toMatchObject({ site_id: org.site_id, sessions_analyzed: 1, edges: [{ from: '/p', to: '/q', sessions: 1, friction_weight: 12 }] });
    });
  });

  it('an unknown device, an unparsable instant, from after to and instants out of bounds are 400 invalid_input', async () => {
    const org = await h.org('Filters');
    const now = h.clock.now();
    const routes = ['/v1/query/page-heatmap?page=/checkout', '/v1/query/element-heatmap?page=/checkout&selector=a', '/v1/query/flows', '/v1/query/journeys/friction'];
    const bad: [Record<string, string>, string][] = [
      [{ device: 'phone' }, 'device'],
      [{ device: 'Desktop' }, 'device'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-45T00:00:00Z' }, 'to'],
      [{ from: '2026-01-01' }, 'from'], // a date is not an instant
      [{ from: iso(now - DAY), to: iso(now - 2 * DAY) }, 'to'],
      [{ from: iso(now - DAY), to: iso(now - DAY) }, 'to'],
      [{ from: iso(now - 91 * DAY) }, 'from'],
      [{ to: iso(now - 91 * DAY) }, 'to'],
      [{ to: iso(now + HOUR) }, 'to'],
    ];
    for (const route of routes) {
      for (const [params, field] of bad) {
        await expectInvalid(h, org.keys.secret, `${route}${route.includes('?') ? '&' : '?'}${new URLSearchParams(params)}`, field);
      }
      // The bounds themselves are allowed.
      await get(org, route, { from: iso(now - 90 * DAY), to: iso(now) });
    }
  });
});
