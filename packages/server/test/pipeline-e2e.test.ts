// End to end: 8 days of generated traffic imported through POST /v1/ingest (import mode keeps
// the timestamps), the pipeline backfilled cycle by cycle, and every number read back through
// the public query API. Every expected value below is worked out by hand from DOMAIN.md
// section 3 and 6; the arithmetic is spelled out next to it.
//
// Traffic: each day d = 0..7 (2026-10-26 .. 2026-11-02) a burst at 10:01-10:05 UTC of 12
// new visitors (group P), each viewing /pricing then /checkout. The first k[d] of them
// rage-click `button.pay` on /checkout once at confidence 0.8 (25 x 0.8 = 20 each); visitor 0
// also dead-clicks `a.plan` on /pricing (12). On day 0 only, visitors 0-2 also view /help (3
// users, no signals: scored, then stale) and visitors 3-4 view /about (2 users: never scored).
// Day 7 adds group Q at 10:12-10:14: 10 more visitors, each rage-clicking twice at confidence 1.
// Deploy A (version 2.0.0) is recorded at day 7 10:11, deploy B at 10:20.
//
// With 15-minute cycles, each burst falls inside one interval and has >= 10 users, so from the
// cycle at 10:15 on, every cycle's window reaches back exactly to the latest burst (at most
// 24 hours): day d's scores hold in the 96 cycles from day d 10:15 to day d+1 10:00.
import { beforeAll, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { runCycle } from '../src/pipeline/cycle.ts';

const MIN = 60_000;
const INTERVAL = 15 * MIN;
const DAY = 24 * 60 * MIN;
const DAY0 = Date.UTC(2026, 9, 26); // Monday 2026-10-26 00:00 UTC
const at = (day: number, h: number, m: number, s = 0) => DAY0 + day * DAY + ((h * 60 + m) * 60 + s) * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const K = [2, 4, 2, 4, 2, 4, 2, 2]; // rage-clicking visitors of group P, per day
const hex = (group: number, day: number, i: number) => `${group.toString(16)}${day.toString(16).padStart(3, '0')}${i.toString(16).padStart(4, '0')}`.padEnd(32, 'a');

type Ev = Record<string, unknown>;

function sessions(): { sid: string; vid: string; events: Ev[] }[] {
  const out: { sid: string; vid: string; events: Ev[] }[] = [];
  for (let d = 0; d < 8; d++) {
    for (let i = 0; i < 12; i++) {
      const t = at(d, 10, 1) + i * 20_000;
      const events: Ev[] = [
        { type: 'pageview', ts: t, page: '/pricing' },
        { type: 'pageview', ts: t + 10_000, page: '/checkout' },
      ];
      if (i === 0) events.push({ type: 'signal', ts: t + 5_000, page: '/pricing', signal_type: 'dead_click', element: 'a.plan', label: 'Plans', confidence: 1 });
      if (i < K[d]) events.push({ type: 'signal', ts: t + 15_000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.8 });
      if (d === 0 && i < 3) events.push({ type: 'pageview', ts: t + 18_000, page: '/help' });
      if (d === 0 && (i === 3 || i === 4)) events.push({ type: 'pageview', ts: t + 18_000, page: '/about' });
      out.push({ sid: hex(1, d, i), vid: hex(2, d, i), events });
    }
  }
  for (let j = 0; j < 10; j++) {
    const t = at(7, 10, 12) + j * 15_000;
    out.push({
      sid: hex(3, 7, j), vid: hex(4, 7, j), events: [
        { type: 'pageview', ts: t, page: '/pricing' },
        { type: 'pageview', ts: t + 5_000, page: '/checkout' },
        { type: 'signal', ts: t + 10_000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 1 },
        { type: 'signal', ts: t + 12_000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 1 },
      ],
    });
  }
  return out;
}

/** Mean and sample standard deviation (n - 1) of values repeated `count` times each. */
function stats(groups: [value: number, count: number][]) {
  const n = groups.reduce((s, [, c]) => s + c, 0);
  const mean = groups.reduce((s, [v, c]) => s + v * c, 0) / n;
  const sd = Math.sqrt(groups.reduce((s, [v, c]) => s + c * (v - mean) ** 2, 0) / (n - 1));
  return { n, mean, sd };
}

// Hand-computed values (DOMAIN.md 3: raw = weighted / active x the multiplier of the affected
// share, 1.0 below 10 %, 1.5 to under 25 %, 2.0 to under 50 %, 2.5 from 50 %; raw stored to 4
// decimals; score = 100 x (1 - e^(-raw / 10)) of the stored raw, one decimal).
// Days 0-6, /checkout: 12 active, k x 20 weighted, k affected.
// k = 2: 2 / 12 = 16.7 % (200 >= 120, 200 < 300): x1.5; 40 / 12 x 1.5 = 5 -> 100 x (1 - e^-0.5) = 39.347 -> 39.3.
const CHECKOUT_LOW = 5;
// k = 4: 4 / 12 = 33.3 % (400 >= 300, 400 < 600): x2.0; 80 / 12 x 2 = 13.3333 -> 100 x (1 - e^-1.33333) = 73.640 -> 73.6.
const CHECKOUT_HIGH = 13.3333;
// /pricing: 12 active, 12 weighted, 1 affected (1 / 12 = 8.3 %, x1.0): 12 / 12 = 1 -> 100 x (1 - e^-0.1) = 9.516 -> 9.5.
// Site: 12 visitors, 20k + 12 weighted, k affected (visitor 0's dead click is one of them), same shares as /checkout:
const SITE_LOW = 6.5; // k = 2: 52 / 12 x 1.5 = 6.5
const SITE_HIGH = 15.3333; // k = 4: 92 / 12 x 2 = 15.3333
// Day 7, cycle 10:15, window [10:00, 10:15): /checkout has 12 + 10 = 22 active, 2 x 20 + 20 x 25 =
// 540 weighted, 2 + 10 = 12 affected (12 / 22 = 54.5 %, 1200 >= 1100: x2.5): 540 / 22 x 2.5 = 61.3636
// -> 100 x (1 - e^-6.13636) = 99.784 -> 99.8, `critical`.
const CHECKOUT_DAY7 = (540 / 22) * 2.5;
// /pricing: 22 active, 12 weighted, 1 affected (4.5 %, x1.0): 12 / 22 = 0.5455 -> 100 x (1 - e^-0.05455) = 5.309 -> 5.3.
// Site: 22 visitors, 552 weighted, 12 affected (54.5 %, x2.5): 552 / 22 x 2.5 = 62.7273.
const SITE_DAY7 = (552 / 22) * 2.5;
// Overall (active-user-weighted page scores; /help stale at 0 with its last 3 users):
// days with k = 2: (39.3 x 12 + 9.5 x 12 + 0 x 3) / 27 = 585.6 / 27 = 21.689 -> 21.7;
// k = 4: (73.6 x 12 + 9.5 x 12 + 0 x 3) / 27 = 997.2 / 27 = 36.933 -> 36.9;
// day 7: (99.8 x 22 + 5.3 x 22 + 0 x 3) / 47 = 2312.2 / 47 = 49.196 -> 49.2.

eachDialect('pipeline end to end', (dialect) => {
  const h = useHarness(dialect.name);
  let siteId: string;
  let key: string;
  let deployA: string;
  let deployB: string;
  const snapshots: Record<string, { confusion_after: unknown; delta: unknown }> = {};

  const get = async (url: string) => {
    const res = await h.app.inject({ method: 'GET', url, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const cycle = async (t: number) => {
    const result = await runCycle(h.store.db, siteId, t, { intervalMs: INTERVAL, clock: h.clock });
    expect(result.status).toBe('done');
  };
  const deployNow = async (version: string) => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(key), payload: { version } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };

  beforeAll(async () => {
    const org = await h.org('E2E');
    siteId = org.site_id;
    key = org.keys.secret;
    h.clock.set(at(7, 10, 31));
    for (const s of sessions()) {
      const res = await h.app.inject({
        method: 'POST', url: '/v1/ingest', headers: bearer(key),
        payload: { sid: s.sid, vid: s.vid, url: 'https://shop.example/', ts: s.events[s.events.length - 1].ts, import: true, events: s.events },
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().data).toMatchObject({ accepted: s.events.length, rejected: 0 });
    }

    // Backfill every 15-minute cycle from the first burst up to day 7 10:00.
    for (let t = at(0, 10, 15); t <= at(7, 10, 0); t += INTERVAL) await cycle(t);
    // Deploy A at day 7 10:11, after the P burst and before Q.
    h.clock.set(at(7, 10, 11));
    deployA = (await deployNow('2.0.0')).id;
    await cycle(at(7, 10, 15)); // 4 minutes after A: too early for confusion_after
    h.clock.set(at(7, 10, 15, 1));
    snapshots.at1015 = (await get(`/v1/query/deploys/${deployA}`));
    h.clock.set(at(7, 10, 20));
    deployB = (await deployNow('2.0.1')).id;
    await cycle(at(7, 10, 30)); // 19 minutes after A; 10 minutes after B, with no traffic since B
    h.clock.set(at(7, 10, 31));
  }, 600_000);

  it('imported events keep their past timestamps', async () => {
    const raw = await get('/v1/query/raw?table=signals&sort=occurred_at&order=asc&limit=1');
    expect(raw.total).toBe(K.reduce((a, b) => a + b, 0) + 8 + 20); // rage clicks + dead clicks + Q's
    expect(raw.rows[0].occurred_at).toBe(iso(at(0, 10, 1, 5)));
  });

  it('the site summary: scores, order, stale and unscored pages, totals, trend and duck state', async () => {
    const data = await get('/v1/query/scores');
    expect(data.as_of).toBe(iso(at(7, 10, 30)));
    expect(data.site.site_id).toBe(siteId);
    expect(data.site.pages.map((p: { page: string }) => p.page)).toEqual(['/checkout', '/pricing', '/help']); // never /about
    const [checkout, pricing, help] = data.site.pages;
    expect(checkout).toMatchObject({
      score: 99.8, trend: 'up', duck_state: 'critical', dominant_signal: 'rage_click', active_users: 22, affected_users: 12,
      frustrated_users: 12, signal_count: 22, stale: false, window_start: iso(at(7, 10, 0)), window_end: iso(at(7, 10, 30)),
      breakdown: [{ signal: 'rage_click', count: 22, weight: 25, weighted_score: 540, percentage: 100 }],
    });
    expect(checkout.raw_score).toBeCloseTo(CHECKOUT_DAY7, 4);
    expect(pricing).toMatchObject({ score: 5.3, duck_state: 'calm', active_users: 22, affected_users: 1, dominant_signal: 'dead_click', stale: false });
    expect(pricing.raw_score).toBeCloseTo(12 / 22, 4); // 1 of 22 affected: x1.0
    // /help: 3 users on day 0 only, so stale since day 1 10:15 with its last score kept.
    expect(help).toMatchObject({ score: 0, active_users: 3, stale: true, computed_at: iso(at(1, 10, 0)) });
    expect(data.site.overall_score).toBe(49.2);
    expect(data.site.total_active_users).toBe(22);
    expect(data.site.total_affected_users).toBe(12);
    expect(data.site.overall_trend).toBe('up');
    // 49.2 is `alert` (40-60) by the score itself; /checkout at `critical` only asks for `watching`
    // and no alert rule exists, so the score sets it.
    expect(data).toMatchObject({ duck_state: 'alert', duck_reason: 'score' });
  });

  it('page history: every cycle since the first burst, newest first, day by day scores', async () => {
    const data = await get('/v1/query/trends?page=/checkout&days=8');
    const rows = data.history as { cycle_at: string; score: number; raw_score: number; deviation: number | null; trend: string; active_users: number }[];
    // Cycles day 0 10:15 .. day 7 10:30: 7 x 96 + 2.
    expect(rows).toHaveLength(7 * 96 + 2);
    const times = rows.map((r) => Date.parse(r.cycle_at));
    for (let i = 1; i < times.length; i++) expect(times[i - 1] - times[i]).toBe(INTERVAL);
    expect(times[0]).toBe(at(7, 10, 30));
    expect(times[times.length - 1]).toBe(at(0, 10, 15));
    const rowAt = (t: number) => rows.find((r) => r.cycle_at === iso(t))!;
    for (let d = 0; d < 7; d++) {
      const expected = K[d] === 2 ? { score: 39.3, raw: CHECKOUT_LOW } : { score: 73.6, raw: CHECKOUT_HIGH };
      for (const t of [at(d, 10, 15), at(d, 23, 45), at(d + 1, 10, 0)]) {
        expect(rowAt(t).score).toBe(expected.score);
        expect(rowAt(t).raw_score).toBeCloseTo(expected.raw, 4);
        expect(rowAt(t).active_users).toBe(12);
      }
    }
    expect(rowAt(at(7, 10, 15)).score).toBe(99.8);
    expect(rowAt(at(7, 10, 15)).raw_score).toBeCloseTo(CHECKOUT_DAY7, 4);
    // 10:30, window [10:00, 10:30): the same 22 users and signals (nothing since 10:15).
    expect(rowAt(at(7, 10, 30)).score).toBe(99.8);
  });

  it('the baseline matures after 7 days of history: deviation and trend by hand', async () => {
    const rows = (await get('/v1/query/trends?page=/checkout&days=8')).history as { cycle_at: string; deviation: number | null; trend: string }[];
    const rowAt = (t: number) => rows.find((r) => r.cycle_at === iso(t))!;
    // At day 7 10:00 the history (first row day 0 10:15) spans 6 d 23 h 45 min: no baseline yet.
    expect(rowAt(at(7, 10, 0))).toMatchObject({ deviation: null, trend: 'stable' });
    expect(rowAt(at(3, 12, 0))).toMatchObject({ deviation: null, trend: 'stable' });
    // At 10:15 it spans 7 days; [day 0 10:15, day 7 10:15) holds 96 rows of each of days 0-6:
    // 4 days (k = 2) at 5 and 3 days (k = 4) at 13.3333.
    // Mean (384 x 5 + 288 x 13.3333) / 672 = 5759.9904 / 672 = 8.5714; sample sd: for two values,
    // sqrt(384 x 288 x (13.3333 - 5)^2 / (672 x 671)) = sqrt(110592 x 69.4439 / 450912) = sqrt(17.032) = 4.1270.
    const base1015 = stats([[CHECKOUT_LOW, 4 * 96], [CHECKOUT_HIGH, 3 * 96]]);
    expect(base1015.mean).toBeCloseTo(8.5714, 4);
    expect(base1015.sd).toBeCloseTo(4.1270, 3);
    const dev1015 = rowAt(at(7, 10, 15)).deviation!;
    expect(dev1015).toBeCloseTo((CHECKOUT_DAY7 - base1015.mean) / base1015.sd, 3); // (61.3636 - 8.5714) / 4.1270 = 12.792
    expect(rowAt(at(7, 10, 15)).trend).toBe('up');
    // At 10:30 the trailing 7 days drop day 0 10:15 and take in day 7 10:15.
    const base1030 = stats([[CHECKOUT_LOW, 4 * 96 - 1], [CHECKOUT_HIGH, 3 * 96], [CHECKOUT_DAY7, 1]]);
    // Mean (383 x 5 + 288 x 13.3333 + 61.3636) / 672 = 5816.3540 / 672 = 8.6553, sd about 4.5999:
    // (61.3636 - 8.6553) / 4.5999 = 11.458.
    expect(rowAt(at(7, 10, 30)).deviation!).toBeCloseTo((CHECKOUT_DAY7 - base1030.mean) / base1030.sd, 3);
    expect(rowAt(at(7, 10, 30)).trend).toBe('up');
  });

  it('the site series: overall scores, site raw scores and the site baseline', async () => {
    const rows = (await get('/v1/query/trends?days=8')).history as { cycle_at: string; score: number; raw_score: number; deviation: number | null; trend: string; active_users: number; affected_users: number }[];
    expect(rows).toHaveLength(7 * 96 + 2);
    expect(rows[0].cycle_at).toBe(iso(at(7, 10, 30)));
    const rowAt = (t: number) => rows.find((r) => r.cycle_at === iso(t))!;
    // The site row's score is the overall score (21.7 with k = 2, 36.9 with k = 4); its raw is the site-level raw.
    expect(rowAt(at(0, 10, 15))).toMatchObject({ score: 21.7, active_users: 12, affected_users: 2, deviation: null, trend: 'stable' });
    expect(rowAt(at(0, 10, 15)).raw_score).toBeCloseTo(SITE_LOW, 4);
    expect(rowAt(at(1, 10, 15))).toMatchObject({ score: 36.9, active_users: 12, affected_users: 4 });
    expect(rowAt(at(1, 10, 15)).raw_score).toBeCloseTo(SITE_HIGH, 4);
    expect(rowAt(at(6, 20, 0))).toMatchObject({ score: 21.7 });
    expect(rowAt(at(6, 20, 0)).raw_score).toBeCloseTo(SITE_LOW, 4);
    expect(rowAt(at(7, 10, 0))).toMatchObject({ score: 21.7, deviation: null, trend: 'stable' });
    const now = rowAt(at(7, 10, 15));
    expect(now).toMatchObject({ score: 49.2, active_users: 22, affected_users: 12, trend: 'up' });
    expect(now.raw_score).toBeCloseTo(SITE_DAY7, 4);
    // Site baseline: 384 rows at 6.5 and 288 at 15.3333: mean (384 x 6.5 + 288 x 15.3333) / 672 =
    // 6911.9904 / 672 = 10.2857, sd sqrt(110592 x 8.8333^2 / 450912) = sqrt(19.137) = 4.3746;
    // deviation (62.7273 - 10.2857) / 4.3746 = 11.988.
    const base = stats([[SITE_LOW, 4 * 96], [SITE_HIGH, 3 * 96]]);
    expect(base.mean).toBeCloseTo(10.2857, 4);
    expect(base.sd).toBeCloseTo(4.3746, 3);
    expect(now.deviation!).toBeCloseTo((SITE_DAY7 - base.mean) / base.sd, 3);
  });

  it('deploy A: confusion before, null until 5 minutes after, then after and delta', async () => {
    // Recorded at 10:11: the latest cycle (10:00) still shows day 6 (k = 2): overall 21.7.
    expect(snapshots.at1015).toMatchObject({ confusion_after: null, delta: null, pages_after: null, after_computed_at: null });
    const deploy = await get(`/v1/query/deploys/${deployA}`);
    expect(deploy).toMatchObject({
      version: '2.0.0', environment: 'production', deployed_at: iso(at(7, 10, 11)), confusion_before: 21.7,
      pages_before: [
        { page: '/checkout', score: 39.3, active_users: 12 },
        { page: '/pricing', score: 9.5, active_users: 12 },
        { page: '/help', score: 0, active_users: 3 },
      ],
    });
    // The 10:30 cycle scores [10:11, 10:30): only group Q. /checkout: 10 users, 20 rage clicks at cf 1 =
    // 500, 10 of 10 affected (100 %, x2.5): 500 / 10 x 2.5 = 125 -> 100 x (1 - e^-12.5) = 99.99963 -> 100.
    // (Had P's 12 users and 2 rage clicks been counted, as at 10:15, it would read 99.8.)
    // /pricing: 10 users, nothing: 0. Overall (100 x 10 + 0 x 10) / 20 = 50; delta 50 - 21.7 = 28.3 (worse).
    expect(deploy).toMatchObject({
      confusion_after: 50, delta: 28.3, after_computed_at: iso(at(7, 10, 30)),
      pages_after: [{ page: '/checkout', score: 100, active_users: 10 }, { page: '/pricing', score: 0, active_users: 10 }],
    });
  });

  it('deploy B: before is the 10:15 state; after stays null with no post-deploy traffic', async () => {
    const list = await get('/v1/query/deploys');
    expect(list.total).toBe(2);
    expect(list.deploys.map((d: { id: string }) => d.id)).toEqual([deployB, deployA]); // newest first
    const b = list.deploys[0];
    // Recorded at 10:20, after the 10:15 cycle: overall 49.2, the day-7 page scores.
    expect(b).toMatchObject({ version: '2.0.1', confusion_before: 49.2, confusion_after: null, delta: null, pages_after: null });
    expect(b.pages_before.map((p: { page: string; score: number }) => [p.page, p.score])).toEqual([['/checkout', 99.8], ['/pricing', 5.3], ['/help', 0]]);
    expect(list.deploys[1]).toMatchObject({ confusion_before: 21.7, confusion_after: 50, delta: 28.3 });
  });

  it('page detail, elements, compare and annotations read the same scores', async () => {
    const note = await h.app.inject({ method: 'POST', url: '/v1/manage/annotations', headers: bearer(key), payload: { message: 'Pay button moved', page: '/checkout' } });
    expect(note.statusCode, note.body).toBe(201);
    const detail = await get('/v1/query/page?page=/checkout');
    expect(detail.score).toMatchObject({ page: '/checkout', score: 99.8, trend: 'up' });
    // History of the last 7 days (since day 0 10:31): the 674 rows less day 0 10:15 and 10:30.
    expect(detail.history).toHaveLength(7 * 96);
    expect(detail.history[0].cycle_at).toBe(iso(at(7, 10, 30)));
    expect(detail.history[detail.history.length - 1].cycle_at).toBe(iso(at(0, 10, 45)));
    expect(detail.recent_deploys.map((d: { id: string }) => d.id)).toEqual([deployB, deployA]);
    expect(detail.annotations.map((a: { message: string }) => a.message)).toEqual(['Pay button moved']);
    // Elements over 7 days: day 0's burst (10:01) is out. button.pay: rage clicks of days 1-7 (4+2+4+2+4+2+2 = 20)
    // plus Q's 20, from 18 + 2 + 10 = 30 visitors.
    const elements = (await get('/v1/query/elements?page=/checkout')).elements;
    expect(elements).toHaveLength(1);
    expect(elements[0]).toMatchObject({ element_selector: 'button.pay', label: 'Pay now', signal_count: 40, signals: { rage_click: 40 }, dominant_signal: 'rage_click', affected_users: 30 });
    const compare = await get('/v1/query/compare?a=/checkout&b=/pricing');
    expect(compare.a).toMatchObject({ page: '/checkout', score: 99.8, trend: 'up', active_users: 22, affected_users: 12 });
    expect(compare.b).toMatchObject({ page: '/pricing', score: 5.3, active_users: 22, affected_users: 1 });
    expect(compare.difference).toMatchObject({ score: 94.5, active_users: 0, affected_users: 11 }); // 99.8 - 5.3
    const trends = await get('/v1/query/trends?page=/checkout&days=1');
    expect(trends.annotations.map((a: { message: string }) => a.message)).toEqual(['Pay button moved']);
  });

  it('a cycle run again replaces its rows and gives the same answer', async () => {
    await cycle(at(7, 10, 30));
    const rows = (await get('/v1/query/trends?page=/checkout&days=1')).history as { cycle_at: string; score: number }[];
    expect(rows.filter((r) => r.cycle_at === iso(at(7, 10, 30)))).toHaveLength(1);
    expect(rows[0]).toMatchObject({ cycle_at: iso(at(7, 10, 30)), score: 99.8 });
    expect((await get('/v1/query/scores')).site.overall_score).toBe(49.2);
  });
});

// A smaller site for the rule that links deploys to ignored issues: from the cycle after an
// issue is ignored its signals leave the page scores (DOMAIN.md 4), and so the after-score of a
// deploy, which must stay comparable with confusion_before.
eachDialect('deploys and ignored issues', (dialect) => {
  const T = Date.UTC(2026, 10, 2, 12, 0);
  const h = useHarness(dialect.name);
  let key: string;

  const send = async (sid: string, events: Ev[]) => {
    const res = await h.app.inject({
      method: 'POST', url: '/v1/ingest', headers: bearer(key),
      payload: { sid, vid: sid, url: 'https://shop.example/', ts: events[events.length - 1].ts, import: true, events },
    });
    expect(res.statusCode, res.body).toBe(202);
  };
  const cycle = async (t: number, siteId: string) =>
    expect((await runCycle(h.store.db, siteId, t, { intervalMs: INTERVAL, clock: h.clock })).status).toBe('done');

  it('confusion_after leaves out the signals of an issue ignored before the cycle', async () => {
    const org = await h.org('Ignore');
    key = org.keys.secret;
    h.clock.set(T + 20 * MIN);
    // Two groups of 10 visitors on /checkout: before the deploy (11:46-11:55) and after it (12:03-12:12).
    // In each, visitors 0-2 rage-click button.pay (25 each) and visitors 3-5 dead-click a.help (12 each).
    for (const [group, start] of [[5, T - 14 * MIN], [6, T + 3 * MIN]] as const) {
      for (let i = 0; i < 10; i++) {
        const t = start + i * MIN;
        const events: Ev[] = [{ type: 'pageview', ts: t, page: '/checkout' }];
        if (i < 3) events.push({ type: 'signal', ts: t + 5_000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', confidence: 1 });
        else if (i < 6) events.push({ type: 'signal', ts: t + 5_000, page: '/checkout', signal_type: 'dead_click', element: 'a.help', confidence: 1 });
        await send(hex(group, 0, i), events);
      }
    }
    // 12:00: 10 active, 3 x 25 + 3 x 12 = 111, 6 of 10 affected (60 %, x2.5): 111 / 10 x 2.5 = 27.75
    // -> 100 x (1 - e^-2.775) = 93.765 -> 93.8.
    await cycle(T, org.site_id);
    h.clock.set(T + MIN);
    const issues = (await h.app.inject({ method: 'GET', url: '/v1/query/issues', headers: bearer(key) })).json().data.issues as { id: string; type: string }[];
    const rage = issues.find((i) => i.type === 'rage_click');
    expect(rage).toBeDefined();
    const patch = await h.app.inject({ method: 'PATCH', url: `/v1/manage/issues/${rage!.id}`, headers: bearer(key), payload: { status: 'ignored' } });
    expect(patch.statusCode, patch.body).toBe(200);

    h.clock.set(T + 2 * MIN);
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(key), payload: { version: '3.1.0' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.confusion_before).toBe(93.8);

    // 12:15: [12:02, 12:15) holds the second group; the rage clicks are ignored since 12:01, so
    // 3 x 12 = 36 over 10 users, and only the 3 dead-clickers are affected (30 %, x2.0):
    // 36 / 10 x 2 = 7.2 -> 100 x (1 - e^-0.72) = 51.325 -> 51.3; delta 51.3 - 93.8 = -42.5. The page
    // score agrees. (With the rage clicks: 93.8 again; with their weight gone but their 3 users still
    // counted as affected, 60 %: 36 / 10 x 2.5 = 9 -> 59.3.)
    await cycle(T + 15 * MIN, org.site_id);
    h.clock.set(T + 16 * MIN);
    const deploy = (await h.app.inject({ method: 'GET', url: `/v1/query/deploys/${created.json().data.id}`, headers: bearer(key) })).json().data;
    expect(deploy).toMatchObject({ confusion_before: 93.8, confusion_after: 51.3, delta: -42.5, pages_after: [{ page: '/checkout', score: 51.3, active_users: 10 }] });
    const scores = (await h.app.inject({ method: 'GET', url: '/v1/query/scores', headers: bearer(key) })).json().data;
    expect(scores.site.pages[0]).toMatchObject({ page: '/checkout', score: 51.3, dominant_signal: 'dead_click', affected_users: 3 });
  });
});
