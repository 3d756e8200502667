// Alerts end to end: traffic in through POST /v1/ingest (import mode), runCycle, and the alerts
// read back through GET /v1/query/alerts. Every expected number is worked out by hand from
// DOMAIN.md sections 3 and 5 next to the scenario.
//
// Scoring recap used throughout (DOMAIN.md 3): a page's visitors all come in one interval, and
// there are at least 10 of them, so its window is that interval alone. raw = (sum of weight x cf)
// / active users x the breadth multiplier of the affected share: 1.0 below 10 %, 1.5 from 10 %,
// 2.0 from 25 %, 2.5 from 50 % (so 1 signalling visitor of 10 is 10 %: x1.5; 1 of 20 is 5 %: x1.0);
// score = 100 x (1 - e^(-raw / 10)), one decimal. rage_click weighs 25, dead_click 12; cf is 1.
// Alert severity: critical at score >= 81 or a condition at twice the threshold, high at score >= 61.
import { beforeAll, describe, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import { api, cycle, DAY, HOUR, ingest, intervalTraffic, INTERVAL, MIN, hexId, type PageTraffic } from './helpers/alert-traffic.ts';

const B = Date.UTC(2026, 9, 20, 0, 0, 0); // Tuesday 2026-10-20 00:00 UTC: two weeks before the harness clock
const C = (n: number) => B + n * INTERVAL; // cycle n; its traffic is in [C(n - 1), C(n))
const quiet = (page: string): PageTraffic => ({ page });
/** `clicks` rage clicks, all from visitor 0, among `users` visitors (default 10). */
const rage = (page: string, clicks: number, element = 'button.pay', users?: number): PageTraffic => ({ page, users, signals: [{ type: 'rage_click', element, count: clicks }] });
// The spike scenario's rise: 2 rage clicks from 1 of 10 visitors (10 %: x1.5): 50 / 10 x 1.5 =
// raw 7.5, score 100 x (1 - e^-0.75) = 100 x (1 - 0.47237) = 52.76, so 52.8.
const SPIKE_CLICKS = 2;

eachDialect('alerts through the pipeline', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  /** Ingests one interval's traffic ending at C(n), with the clock at C(n), and runs cycle n. */
  async function step(siteId: string, key: string, n: number, pages: PageTraffic[]) {
    h.clock.set(C(n));
    await ingest(h, key, intervalTraffic(C(n - 1), pages));
    return cycle(h, siteId, C(n));
  }

  describe('spike: cooldown, still firing, re-notification, new_page once, disabled rules', () => {
    let siteId: string;
    let a: ReturnType<typeof api>;
    let spike: { id: string };
    let newPage: { id: string };
    const timeline = async (id: string) => (await a.get(`/v1/query/alerts/${id}`)).timeline as { kind: string; message: string; created_at: string }[];

    beforeAll(async () => {
      const org = await h.org('Spike');
      siteId = org.site_id;
      a = api(h, org.keys.secret);
      h.clock.set(B);
      spike = await a.createRule({ name: 'Checkout spike', trigger_type: 'spike', threshold: 30, page_pattern: '/checkout', cooldown_minutes: 60, channels: ['mcp'] });
      newPage = await a.createRule({ name: 'New page', trigger_type: 'new_page', threshold: 10, page_pattern: '/checkout', cooldown_minutes: 1 });
      await a.createRule({ name: 'Disabled spike', trigger_type: 'spike', threshold: 1, enabled: false });
      const later = await a.createRule({ name: 'Disabled later', trigger_type: 'spike', threshold: 1 });
      expect((await a.call('PATCH', `/v1/manage/alert-rules/${later.id}`, { enabled: false })).status).toBe(200);
    });

    it('a first score is not a spike; 0 -> 52.8 (2 rage clicks from 1 of 10 visitors: 50 / 10 x 1.5 = raw 7.5) is, with the alert record filled', async () => {
      const c1 = await step(siteId, a.key, 1, [quiet('/checkout'), quiet('/pricing')]);
      expect(c1.status === 'done' && c1.alerts.fired).toBe(0);
      expect((await a.alerts()).total).toBe(0);

      // /pricing rises by 52.8 as well, but the spike rule watches /checkout only.
      const c2 = await step(siteId, a.key, 2, [rage('/checkout', SPIKE_CLICKS), rage('/pricing', SPIKE_CLICKS)]);
      expect(c2.status === 'done' && c2.alerts.fired).toBe(2); // the spike on /checkout and new_page on /checkout
      const { alerts, total } = await a.alerts();
      expect(total).toBe(2);
      const alert = alerts.find((x) => x.rule_id === spike.id)!;
      // Rise 52.8 - 0 = 52.8 >= 30. Severity: score 52.8 < 61 and condition 52.8 < 2 x 30 = 60: warning.
      expect(alert).toMatchObject({
        site_id: siteId, rule_name: 'Checkout spike', trigger_type: 'spike', page: '/checkout', severity: 'warning', status: 'fired',
        score_before: 0, score_after: 52.8, condition_value: 52.8, threshold: 30,
        fired_at: new Date(C(2)).toISOString(), acknowledged_at: null, investigating_at: null, resolved_at: null, resolved_reason: null,
        breakdown: [{ signal: 'rage_click', count: 2, weight: 25, weighted_score: 50, percentage: 100 }],
      });
      expect(alert.message).toContain('Checkout spike');
      expect(alert.message).toContain('rose 52.8 points');
      // new_page: /checkout first seen at C(1), no mature baseline, 52.8 >= 10; severity: 52.8 >= 2 x 10, critical.
      expect(alerts.find((x) => x.rule_id === newPage.id)).toMatchObject({ trigger_type: 'new_page', page: '/checkout', severity: 'critical', condition_value: 52.8 });

      const detail = await a.get(`/v1/query/alerts/${alert.id}`);
      expect(detail).toMatchObject({ id: alert.id, status: 'fired' });
      expect(detail.timeline).toHaveLength(1);
      expect(detail.timeline[0]).toMatchObject({ kind: 'fired', created_at: new Date(C(2)).toISOString() });
    });

    it('resolving it records acknowledged, investigating and resolved (with reason) in the timeline', async () => {
      const id = (await a.alerts()).alerts.find((x) => x.rule_id === spike.id)!.id;
      h.clock.set(C(2) + MIN);
      const ack = await a.call('PATCH', `/v1/manage/alerts/${id}`, { status: 'acknowledged' });
      expect(ack.status, ack.raw).toBe(200);
      expect(ack.body.data).toMatchObject({ status: 'acknowledged', acknowledged_at: new Date(C(2) + MIN).toISOString() });
      h.clock.set(C(2) + 2 * MIN);
      expect((await a.call('PATCH', `/v1/manage/alerts/${id}`, { status: 'investigating' })).body.data)
        .toMatchObject({ status: 'investigating', investigating_at: new Date(C(2) + 2 * MIN).toISOString() });
      h.clock.set(C(2) + 3 * MIN);
      const resolved = await a.call('PATCH', `/v1/manage/alerts/${id}`, { status: 'resolved', resolved_reason: 'Button handler fixed' });
      expect(resolved.body.data).toMatchObject({
        status: 'resolved', resolved_at: new Date(C(2) + 3 * MIN).toISOString(), resolved_reason: 'Button handler fixed',
        acknowledged_at: new Date(C(2) + MIN).toISOString(),
      });
      const kinds = (await timeline(id)).map((t) => t.kind);
      expect(kinds).toEqual(['fired', 'acknowledged', 'investigating', 'resolved']);
      expect((await timeline(id))[3].message).toContain('Button handler fixed');
      // The new_page alert is resolved too, so only its once-per-page rule can keep it quiet later.
      const np = (await a.alerts()).alerts.find((x) => x.rule_id === newPage.id)!;
      expect((await a.call('PATCH', `/v1/manage/alerts/${np.id}`, { status: 'resolved' })).status).toBe(200);
    });

    it('within the cooldown (60 minutes from C2) the same rise fires nothing, even with the alert resolved', async () => {
      await step(siteId, a.key, 3, [quiet('/checkout')]);
      const c4 = await step(siteId, a.key, 4, [rage('/checkout', SPIKE_CLICKS)]); // 0 -> 52.8 again; C4 = C2 + 30 min
      expect(c4.status === 'done' && c4.alerts).toEqual({ fired: 0, stillFiring: 0 });
      expect((await a.alerts()).total).toBe(2);
    });

    it('once the cooldown is over (C6 = C2 + 60 min) a new alert fires; new_page never fires twice for a page', async () => {
      await step(siteId, a.key, 5, [quiet('/checkout')]);
      const c6 = await step(siteId, a.key, 6, [rage('/checkout', SPIKE_CLICKS)]); // 0 -> 52.8
      expect(c6.status === 'done' && c6.alerts).toEqual({ fired: 1, stillFiring: 0 });
      const { alerts, total } = await a.alerts();
      expect(total).toBe(3);
      expect(alerts[0]).toMatchObject({ rule_id: spike.id, status: 'fired', fired_at: new Date(C(6)).toISOString(), score_before: 0, score_after: 52.8 });
      expect(alerts.filter((x) => x.rule_id === newPage.id)).toHaveLength(1);
      expect((await a.alerts('&status=resolved')).total).toBe(2);
      expect((await a.alerts('&status=fired')).total).toBe(1);
    });

    it('while unresolved, the condition holding again adds "still firing"; it re-notifies once per cooldown while unacknowledged', async () => {
      const id = (await a.alerts('&status=fired')).alerts[0].id;
      await step(siteId, a.key, 7, [quiet('/checkout')]);
      const c8 = await step(siteId, a.key, 8, [rage('/checkout', SPIKE_CLICKS)]); // 0 -> 52.8; C6 + 30 min: no re-notification yet
      expect(c8.status === 'done' && c8.alerts).toEqual({ fired: 0, stillFiring: 1 });
      expect((await timeline(id)).map((t) => t.kind)).toEqual(['fired', 'still_firing']);

      await step(siteId, a.key, 9, [quiet('/checkout')]);
      const c10 = await step(siteId, a.key, 10, [rage('/checkout', SPIKE_CLICKS)]); // C6 + 60 min: notified again
      expect(c10.status === 'done' && c10.alerts).toEqual({ fired: 0, stillFiring: 1 });
      const t = await timeline(id);
      expect(t.map((x) => x.kind)).toEqual(['fired', 'still_firing', 'still_firing', 'renotified']);
      expect(t[3].created_at).toBe(new Date(C(10)).toISOString());
      const alert = await a.get(`/v1/query/alerts/${id}`);
      expect(alert.last_notified_at).toBe(new Date(C(10)).toISOString());
      expect((await a.alerts()).total).toBe(3);

      // Acknowledged: still firing is recorded, but nobody is notified again.
      h.clock.set(C(10) + MIN);
      await a.call('PATCH', `/v1/manage/alerts/${id}`, { status: 'acknowledged' });
      for (let n = 11; n <= 14; n++) await step(siteId, a.key, n, [n % 2 ? quiet('/checkout') : rage('/checkout', SPIKE_CLICKS)]);
      const kinds = (await timeline(id)).map((x) => x.kind);
      expect(kinds).toEqual(['fired', 'still_firing', 'still_firing', 'renotified', 'acknowledged', 'still_firing', 'still_firing']);
    });

    it('running a cycle again does not repeat itself', async () => {
      const id = (await a.alerts('&status=acknowledged')).alerts[0].id;
      const before = (await timeline(id)).length;
      await cycle(h, siteId, C(14));
      expect((await timeline(id)).length).toBe(before);
      expect((await a.alerts()).total).toBe(3);
    });

    it('disabled rules never fired', async () => {
      const { alerts } = await a.alerts();
      expect(alerts.every((x) => x.rule_name !== 'Disabled spike' && x.rule_name !== 'Disabled later')).toBe(true);
    });
  });

  describe('page patterns, budget crossings, co_occurrence and severities in one cycle', () => {
    let siteId: string;
    let a: ReturnType<typeof api>;
    const rules: Record<string, string> = {};

    // Cycle 1 scores (signals all from visitor 0):
    //   /checkout, 20 visitors: 4 rage (100) + 3 dead (36) on button.pay = 136 / 20 = 6.8; 1 of 20
    //     affected (5 %): x1.0; raw 6.8, score 100 x (1 - e^-0.68) = 100 x (1 - 0.50662) = 49.34: 49.3
    //   /checkout/confirm, 10 visitors: 10 rage on button.ok = 250 / 10 = 25; 1 of 10 (10 %): x1.5;
    //     raw 37.5, score 100 x (1 - e^-3.75) = 100 x (1 - 0.02352) = 97.648: 97.6
    //   /pricing, 10 visitors: 1 rage = 25 / 10 = 2.5; x1.5; raw 3.75, score 100 x (1 - e^-0.375)
    //     = 100 x (1 - 0.68729) = 31.27: 31.3
    //   /signup, 10 visitors: 3 rage = 75 / 10 = 7.5; x1.5; raw 11.25, score 100 x (1 - e^-1.125)
    //     = 100 x (1 - 0.32465) = 67.53: 67.5
    //   /about, 10 visitors: nothing = 0
    // Budget targets of 20 (the top of calm): every page but /about is over.
    beforeAll(async () => {
      const org = await h.org('Patterns');
      siteId = org.site_id;
      a = api(h, org.keys.secret);
      h.clock.set(B);
      const make = async (name: string, body: Record<string, unknown>) => { rules[name] = (await a.createRule({ name, ...body })).id; };
      await make('exact', { trigger_type: 'budget', threshold: 20, page_pattern: '/checkout' });
      await make('prefix', { trigger_type: 'budget', threshold: 20, page_pattern: '/checkout*' });
      await make('all', { trigger_type: 'budget', threshold: 20 });
      await make('exact-miss', { trigger_type: 'budget', threshold: 20, page_pattern: '/check' });
      await make('pricing-prefix', { trigger_type: 'budget', threshold: 20, page_pattern: '/pricing*' });
      await make('signup', { trigger_type: 'budget', threshold: 40, page_pattern: '/signup', config: { period: 'weekly' } });
      await make('disabled', { trigger_type: 'budget', threshold: 0, enabled: false });
      await make('co7', { trigger_type: 'co_occurrence', threshold: 7 });
      await make('co8', { trigger_type: 'co_occurrence', threshold: 8 });
      await make('positive', { trigger_type: 'positive', threshold: 50 });
      await make('spike', { trigger_type: 'spike', threshold: 1 });
      await step(siteId, org.keys.secret, 1, [
        { page: '/checkout', users: 20, signals: [{ type: 'rage_click', element: 'button.pay', count: 4 }, { type: 'dead_click', element: 'button.pay', count: 3 }] },
        rage('/checkout/confirm', 10, 'button.ok'), rage('/pricing', 1), rage('/signup', 3), quiet('/about'),
      ]);
    });

    const alertsOf = async (rule: string) => (await a.alerts()).alerts.filter((x) => x.rule_id === rules[rule]);
    const pagesOf = async (rule: string) => (await alertsOf(rule)).map((x) => x.page).sort();

    it('exact, prefix and all-pages patterns pick the matching pages', async () => {
      expect(await pagesOf('exact')).toEqual(['/checkout']);
      expect(await pagesOf('prefix')).toEqual(['/checkout', '/checkout/confirm']);
      expect(await pagesOf('all')).toEqual(['/checkout', '/checkout/confirm', '/pricing', '/signup']); // /about at 0 is not above 20
      expect(await pagesOf('exact-miss')).toEqual([]);
      expect(await pagesOf('pricing-prefix')).toEqual(['/pricing']);
      expect(await pagesOf('disabled')).toEqual([]);
    });

    it('a first score above a budget target is a crossing; positive and spike need a previous score', async () => {
      expect(await pagesOf('signup')).toEqual(['/signup']);
      expect(await pagesOf('positive')).toEqual([]);
      expect(await pagesOf('spike')).toEqual([]);
    });

    it('co_occurrence: button.pay on /checkout shows 2 types, 4 + 3 = 7 signals', async () => {
      const [alert] = await alertsOf('co7');
      // Severity: score 49.3 < 61 and 7 < 2 x 7: warning.
      expect(alert).toMatchObject({ page: '/checkout', condition_value: 7, threshold: 7, severity: 'warning', score_after: 49.3 });
      expect(alert.message).toContain('button.pay');
      expect(await alertsOf('co8')).toHaveLength(0);
    });

    it('severities: critical at twice the threshold or score >= 81, high at >= 61, else warning; records carry the breakdown', async () => {
      const all = await alertsOf('all');
      const by = (page: string) => all.find((x) => x.page === page)!;
      expect(by('/checkout')).toMatchObject({ severity: 'critical', score_before: null, score_after: 49.3, condition_value: 49.3 }); // 49.3 >= 2 x 20, though < 61
      expect(by('/pricing')).toMatchObject({ severity: 'warning', score_after: 31.3, condition_value: 31.3 }); // 31.3 < 40, score < 61
      expect(by('/signup').severity).toBe('critical'); // 67.5 >= 40
      expect(by('/checkout/confirm').severity).toBe('critical'); // 97.6 >= 81 (and >= 40)
      expect((await alertsOf('signup'))[0]).toMatchObject({ severity: 'high', score_after: 67.5 }); // 67.5 < 80 = 2 x 40, 67.5 >= 61
      // 100 / 136 = 73.5 % -> 74, 36 / 136 = 26.5 % -> 26.
      expect(by('/checkout').breakdown).toEqual([
        { signal: 'rage_click', count: 4, weight: 25, weighted_score: 100, percentage: 74 },
        { signal: 'dead_click', count: 3, weight: 12, weighted_score: 36, percentage: 26 },
      ]);
    });

    it('GET /query/alerts pages with offset and limit, newest first, and filters by status', async () => {
      // exact 1 + prefix 2 + all 4 + pricing-prefix 1 + signup 1 + co7 1 = 10 alerts, all fired at C(1).
      const all = await a.alerts();
      expect(all.total).toBe(10);
      const ids = all.alerts.map((x) => x.id);
      expect([...ids].sort().reverse()).toEqual(ids); // same fired_at: later ids (UUIDv7) first
      const page1 = await a.get('/v1/query/alerts?limit=3');
      expect(page1).toMatchObject({ total: 10, offset: 0, limit: 3 });
      expect(page1.alerts.map((x: any) => x.id)).toEqual(ids.slice(0, 3));
      const last = await a.get('/v1/query/alerts?limit=3&offset=9');
      expect(last).toMatchObject({ total: 10, offset: 9, limit: 3 });
      expect(last.alerts.map((x: any) => x.id)).toEqual(ids.slice(9));
      expect((await a.get('/v1/query/alerts')).limit).toBe(50);

      h.clock.set(C(1) + MIN);
      await a.call('PATCH', `/v1/manage/alerts/${ids[0]}`, { status: 'acknowledged' });
      await a.call('PATCH', `/v1/manage/alerts/${ids[1]}`, { status: 'acknowledged' });
      await a.call('PATCH', `/v1/manage/alerts/${ids[2]}`, { status: 'investigating' });
      await a.call('PATCH', `/v1/manage/alerts/${ids[3]}`, { status: 'resolved' });
      const count = async (status: string) => (await a.get(`/v1/query/alerts?status=${status}`)).total;
      expect(await count('fired')).toBe(6);
      expect(await count('acknowledged')).toBe(2);
      expect(await count('investigating')).toBe(1);
      expect(await count('resolved')).toBe(1);
      const resolved = await a.get('/v1/query/alerts?status=resolved');
      expect(resolved.alerts.map((x: any) => x.id)).toEqual([ids[3]]);
    });

    it('bad list parameters: an unknown status is 400 invalid_status; limit over 200 is 400 invalid_input', async () => {
      const bad = await a.call('GET', '/v1/query/alerts?status=open');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_status');
      const big = await a.call('GET', '/v1/query/alerts?limit=201');
      expect(big.status).toBe(400);
      expect(big.body.error.code).toBe('invalid_input');
    });
  });

  describe('positive: the score crossing downward', () => {
    it('31.3 -> 0 crosses below 20 (back to calm) once; staying below fires nothing more', async () => {
      const org = await h.org('Positive');
      const a = api(h, org.keys.secret);
      h.clock.set(B);
      const rule = await a.createRule({ name: 'Better now', trigger_type: 'positive', threshold: 20, cooldown_minutes: 1 });
      // 1 rage click from 1 of 10 visitors (10 %: x1.5): 25 / 10 x 1.5 = raw 3.75, score 100 x (1 - e^-0.375) = 31.27: 31.3.
      await step(org.site_id, org.keys.secret, 1, [rage('/pricing', 1)]);
      expect((await a.alerts()).total).toBe(0); // no previous score to fall from
      await step(org.site_id, org.keys.secret, 2, [quiet('/pricing')]); // 0: from 31.3 >= 20 to 0 < 20, crossed
      const { alerts } = await a.alerts();
      expect(alerts).toHaveLength(1);
      // Severity: score 0 < 61 and condition 0 < 2 x 20: warning.
      expect(alerts[0]).toMatchObject({ rule_id: rule.id, page: '/pricing', score_before: 31.3, score_after: 0, condition_value: 0, severity: 'warning' });
      await a.call('PATCH', `/v1/manage/alerts/${alerts[0].id}`, { status: 'resolved' });
      await step(org.site_id, org.keys.secret, 3, [quiet('/pricing')]); // 0 -> 0: no crossing
      expect((await a.alerts()).total).toBe(1);
    });
  });

  describe('anomaly and trend over a week of daily cycles', () => {
    // Here every cycle has 20 visitors and the rage clicks come from one of them: 1 of 20 is 5 %,
    // so the multiplier is 1.0 and raw = 25 x clicks / 20 moves in steps of 1.25.
    // Daily cycles D1..D7 at 12:00 UTC (scoring window one day, 2 rage clicks: 50 / 20 = raw
    // 2.5, score 100 x (1 - e^-0.25) = 22.1). At D8 (D1 + 7 days) the page has 7 rows over 7
    // days: a mature baseline of mean 2.5, sd 0 (so the divisor is 1); hour and weekday means
    // are 2.5 too.
    const D = (j: number) => Date.UTC(2026, 9, 1, 12, 0) + (j - 1) * DAY;
    async function daily(siteId: string, key: string, j: number, clicks: number) {
      h.clock.set(D(j));
      await ingest(h, key, intervalTraffic(D(j) - INTERVAL, [rage('/checkout', clicks, 'button.pay', 20)]));
      expect((await runCycle(h.store.db, siteId, D(j), { intervalMs: DAY, clock: h.clock })).status).toBe('done');
    }

    it('anomaly: D8 at raw 5.0 is z = 2.5, P = 99.38 %: fires at 99, not at 99.5, and never before the baseline matures', async () => {
      const org = await h.org('Anomaly');
      const a = api(h, org.keys.secret);
      h.clock.set(D(1) - HOUR);
      const at99 = await a.createRule({ name: 'Anomaly 99', trigger_type: 'anomaly', threshold: 99 });
      await a.createRule({ name: 'Anomaly 99.5', trigger_type: 'anomaly', threshold: 99.5 });
      await a.createRule({ name: 'Anomaly 50', trigger_type: 'anomaly', threshold: 50, page_pattern: '/nothing' });
      for (let j = 1; j <= 7; j++) await daily(org.site_id, org.keys.secret, j, 2);
      expect((await a.alerts()).total).toBe(0);
      await daily(org.site_id, org.keys.secret, 8, 4); // 100 / 20 = raw 5.0, score 100 x (1 - e^-0.5) = 100 x (1 - 0.60653) = 39.35: 39.3
      const page = await a.get('/v1/query/page?page=/checkout');
      expect(page.score).toMatchObject({ score: 39.3, raw_score: 5, deviation: 2.5, trend: 'up' }); // deviation (5.0 - 2.5) / max(0, 1) = 2.5
      const { alerts } = await a.alerts();
      expect(alerts).toHaveLength(1);
      // z = (5.0 - 2.5) / 1 = 2.5; Phi(2.5) = 0.99379; 2 x 99 is out of reach and 39.3 < 61: warning.
      expect(alerts[0]).toMatchObject({ rule_id: at99.id, trigger_type: 'anomaly', page: '/checkout', score_after: 39.3, condition_value: 99.38, severity: 'warning' });
    });

    it('trend: after D1..D7 at raw 2.5, 15-minute cycles at 6.25 trend from the 7th on', async () => {
      const org = await h.org('Trend');
      const a = api(h, org.keys.secret);
      h.clock.set(D(1) - HOUR);
      const rule = await a.createRule({ name: 'Trending up', trigger_type: 'trend', threshold: 40 });
      await a.createRule({ name: 'Trending up, high bar', trigger_type: 'trend', threshold: 46.6 });
      for (let j = 1; j <= 7; j++) await daily(org.site_id, org.keys.secret, j, 2);
      // E_k = D7 + 12 h + 15 k min, 20 visitors and 5 rage clicks from one each: 125 / 20 = raw
      // 6.25 (x1.0), score 100 x (1 - e^-0.625) = 100 x (1 - 0.53526) = 46.47: 46.5.
      // At E_k the last 24 hours hold D7 and E1..E(k-1): k rows. At E7: 7 rows, mean
      // (2.5 + 6 x 6.25) / 7 = 40 / 7 = 5.71; the 7-day mean (7 x 2.5 + 6 x 6.25) / 13 = 55 / 13
      // = 4.23, x 1.3 = 5.5; 5.71 >= 5.5 and 46.5 >= 40: fires. At E6 there are only 6 rows. The
      // rule at 46.6 never fires (46.5 < 46.6).
      const E = (k: number) => D(7) + 12 * HOUR + k * INTERVAL;
      for (let k = 1; k <= 7; k++) {
        h.clock.set(E(k));
        await ingest(h, org.keys.secret, intervalTraffic(E(k) - INTERVAL, [rage('/checkout', 5, 'button.pay', 20)]));
        await cycle(h, org.site_id, E(k));
        expect((await a.alerts()).total, `E${k}`).toBe(k < 7 ? 0 : 1);
      }
      const [alert] = (await a.alerts()).alerts;
      // Severity: score 46.5 < 61 and condition 46.5 < 2 x 40: warning.
      expect(alert).toMatchObject({ rule_id: rule.id, trigger_type: 'trend', fired_at: new Date(E(7)).toISOString(), score_after: 46.5, condition_value: 46.5, severity: 'warning' });
    });
  });

  describe('co_occurrence counts each page\'s own scoring window', () => {
    it('a busy page\'s older signals do not count because a quiet page\'s window reaches back 24 hours', async () => {
      const org = await h.org('Window');
      const a = api(h, org.keys.secret);
      // Interval 1: /busy gets a rage and a dead click on button.x (2 types, 2 signals).
      h.clock.set(C(1));
      await ingest(h, org.keys.secret, intervalTraffic(C(0), [{ page: '/busy', signals: [{ type: 'rage_click', element: 'button.x' }, { type: 'dead_click', element: 'button.x' }] }]));
      const rule = await a.createRule({ name: 'Two kinds', trigger_type: 'co_occurrence', threshold: 2 });
      // Interval 9 (two hours later): /busy has 10 quiet visitors, so its window is [C8, C9);
      // /quiet has 3 visitors, so its window reaches back 24 hours, to before interval 1.
      await step(org.site_id, org.keys.secret, 9, [quiet('/busy'), { page: '/quiet', users: 3 }]);
      const scores = await a.get('/v1/query/scores');
      expect(scores.site.pages.map((p: any) => p.page).sort()).toEqual(['/busy', '/quiet']);
      expect((await a.alerts()).alerts.filter((x) => x.rule_id === rule.id)).toEqual([]);
    });
  });

  describe('ignored issues never cause alerts', () => {
    // Cycle 1: on /checkout (button.pay) and /pricing (button.plan), visitors 0-2 each rage-click
    // once and dead-click once: 3 fires from 3 sessions per type, so four issues. Score: 3 x 25 +
    // 3 x 12 = 111 / 10 = 11.1 per user; 3 of 10 affected (30 %): x2.0; raw 22.2, score
    // 100 x (1 - e^-2.22) = 100 x (1 - 0.10861) = 89.14: 89.1 on each page. The two /checkout
    // issues are then ignored.
    const both = (page: string, element: string): PageTraffic => ({
      page, signals: [0, 1, 2].flatMap((by) => [{ type: 'rage_click', element, by }, { type: 'dead_click', element, by }]),
    });
    it('new_page and co_occurrence fire on /pricing but not on /checkout, whose signals are ignored', async () => {
      const org = await h.org('Ignored');
      const a = api(h, org.keys.secret);
      await step(org.site_id, org.keys.secret, 1, [both('/checkout', 'button.pay'), both('/pricing', 'button.plan')]);
      const issues = (await a.get('/v1/query/issues?limit=50')).issues as { id: string; page: string; type: string }[];
      expect(issues.map((i) => `${i.page} ${i.type}`).sort()).toEqual(['/checkout dead_click', '/checkout rage_click', '/pricing dead_click', '/pricing rage_click']);
      h.clock.set(C(1) + MIN);
      for (const issue of issues.filter((i) => i.page === '/checkout')) {
        const res = await a.call('PATCH', `/v1/manage/issues/${issue.id}`, { status: 'ignored' });
        expect(res.status, res.raw).toBe(200);
      }
      const np = await a.createRule({ name: 'New pages', trigger_type: 'new_page', threshold: 5 });
      const co = await a.createRule({ name: 'Co-occurrence', trigger_type: 'co_occurrence', threshold: 2 });
      const budget = await a.createRule({ name: 'Budget', trigger_type: 'budget', threshold: 0 });

      // Cycle 2, the same traffic: /checkout now scores 0 (both types ignored), /pricing 89.1 again.
      await step(org.site_id, org.keys.secret, 2, [both('/checkout', 'button.pay'), both('/pricing', 'button.plan')]);
      const { alerts } = await a.alerts();
      const summary = alerts.map((x) => `${x.rule_id === np.id ? 'new_page' : x.rule_id === co.id ? 'co' : x.rule_id === budget.id ? 'budget' : '?'} ${x.page}`).sort();
      // new_page 5: /pricing 89.1 >= 5, /checkout 0 < 5. co_occurrence 2: button.plan shows 2 types, 6 signals.
      // budget 0: /pricing's 89.1 > 0 (previous 89.1 from cycle 1 is above: no crossing either) - nothing.
      expect(summary).toEqual(['co /pricing', 'new_page /pricing']);
      expect(alerts.find((x) => x.rule_id === co.id)).toMatchObject({ condition_value: 6, score_after: 89.1 });
      expect((await a.get('/v1/query/issues?status=ignored')).total).toBe(2);
    });
  });

  describe('site-level triggers (page null, page_pattern ignored)', () => {
    it('stalled_signups: conversions stop against 3 an hour on the previous 7 days', async () => {
      const org = await h.org('Stalled');
      const a = api(h, org.keys.secret);
      h.clock.set(B);
      const rule = await a.createRule({ name: 'Signups stalled', trigger_type: 'stalled_signups', threshold: 50, page_pattern: '/nowhere', config: { event: 'signup_completed', window_hours: 1, min_expected: 3 } });
      const quietRule = await a.createRule({ name: 'Signups stalled (needs 4 expected)', trigger_type: 'stalled_signups', threshold: 50, config: { event: 'signup_completed', window_hours: 1, min_expected: 4 } });
      // Cycle at T = C(8 days): the previous 7 days each had 3 signups in [T - d days - 1 h, T - d days); now none.
      const T = B + 8 * DAY;
      h.clock.set(T);
      const visits = [];
      for (let d = 1; d <= 7; d++) {
        for (let i = 0; i < 3; i++) {
          const t = T - d * DAY - HOUR + (20 + 15 * i) * MIN; // 20, 35 and 50 minutes into the hour
          visits.push({ sid: hexId(), vid: hexId(), events: [{ type: 'pageview', ts: t, page: '/signup' }, { type: 'track', ts: t + 1000, page: '/signup', name: 'signup_completed' }] });
        }
        // A signup just outside the window on each day does not count.
        const outside = T - d * DAY - HOUR - MIN;
        visits.push({ sid: hexId(), vid: hexId(), events: [{ type: 'track', ts: outside, page: '/signup', name: 'signup_completed' }] });
      }
      // Today: people arrive but nobody signs up; other track events are not conversions of this rule.
      visits.push({ sid: hexId(), vid: hexId(), events: [{ type: 'pageview', ts: T - 10 * MIN, page: '/signup' }, { type: 'track', ts: T - 9 * MIN, page: '/signup', name: 'checkout_completed' }] });
      await ingest(h, org.keys.secret, visits);
      await cycle(h, org.site_id, T);
      const { alerts } = await a.alerts();
      // expected = 21 / 7 = 3 per hour; 0 of 3 = 0 % < 50 %; 3 >= min_expected 3, but < 4.
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ rule_id: rule.id, trigger_type: 'stalled_signups', page: null, condition_value: 0, severity: 'warning', score_after: null });
      expect(alerts.some((x) => x.rule_id === quietRule.id)).toBe(false);
      // The next cycle (window [T - 45 min, T + 15 min)): still none against 3 a day: still firing, same alert.
      await cycle(h, org.site_id, T + INTERVAL);
      expect((await a.alerts()).total).toBe(1);
      expect((await a.get(`/v1/query/alerts/${alerts[0].id}`)).timeline.map((t: any) => t.kind)).toEqual(['fired', 'still_firing']);
    });

    it('revenue_threshold: monthly revenue at risk over the threshold, on the crossing only', async () => {
      // /checkout, last 30 days: 30 sessions rage-click button.pay and never convert (affected);
      // 30 sessions without friction convert at 10,000 cents (calm). Gap 1 - 0 = 1;
      // at risk = 1 x 30 x 10,000 cents = 300,000 cents = 3,000 per month.
      const org = await h.org('Revenue');
      const a = api(h, org.keys.secret);
      const T = B + DAY;
      h.clock.set(T);
      const over = await a.createRule({ name: 'Over 2500', trigger_type: 'revenue_threshold', threshold: 2500 });
      const double = await a.createRule({ name: 'Over 1000', trigger_type: 'revenue_threshold', threshold: 1000 });
      await a.createRule({ name: 'Over 3000', trigger_type: 'revenue_threshold', threshold: 3000 });
      const visits = [];
      for (let i = 0; i < 30; i++) {
        const t = T - 20 * HOUR + i * MIN;
        visits.push({ sid: hexId(), vid: hexId(), events: [{ type: 'pageview', ts: t, page: '/checkout' }, { type: 'signal', ts: t + 1000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay', confidence: 1 }] });
        visits.push({ sid: hexId(), vid: hexId(), events: [{ type: 'pageview', ts: t + 2000, page: '/checkout' }, { type: 'track', ts: t + 3000, page: '/checkout', name: 'checkout_completed', props: { amount_cents: 10_000 } }] });
      }
      await ingest(h, org.keys.secret, visits);
      await cycle(h, org.site_id, T);
      const revenue = await a.get('/v1/query/revenue');
      expect(revenue.total_monthly_revenue_at_risk).toBe(3000);
      const { alerts } = await a.alerts();
      expect(alerts.map((x) => x.rule_id).sort()).toEqual([over.id, double.id].sort());
      expect(alerts.find((x) => x.rule_id === over.id)).toMatchObject({ page: null, condition_value: 3000, severity: 'warning' }); // 3000 < 5000
      expect(alerts.find((x) => x.rule_id === double.id)).toMatchObject({ condition_value: 3000, severity: 'critical' }); // 3000 >= 2000
      // Resolve both; the value stays over the thresholds, which is no new crossing.
      for (const x of alerts) await a.call('PATCH', `/v1/manage/alerts/${x.id}`, { status: 'resolved' });
      await cycle(h, org.site_id, T + 2 * HOUR);
      expect((await a.alerts()).total).toBe(2);
    });
  });
});
