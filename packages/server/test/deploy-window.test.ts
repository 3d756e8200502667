// The time bounds of deploys (DOMAIN.md 6, docs/scoring.md): `deployed_at` may be up to one
// minute ahead of the server (clock skew) and up to 48 hours back, to the millisecond; and
// confusion_after is first filled by a cycle 5 minutes after the deploy, refreshed by every
// cycle until 48 hours after it, then frozen. Cycles are a function of the stored data and
// their time, so only the cycles at the bounds are run. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, DAY, HOUR, ingest, intervalTraffic, MIN, type Visit } from './helpers/alert-traffic.ts';
import { DEPLOY_SETTLE_MS, DEPLOY_TRACK_MS } from '../src/pipeline/cycle.ts';

const iso = (ms: number) => new Date(ms).toISOString();

eachDialect('deploy time bounds', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  it('deployed_at: one minute ahead and 48 hours back are accepted, a millisecond more is refused and records nothing', async () => {
    const org = await h.org('Bounds');
    const a = api(h, org.keys.secret);
    const now = h.clock.now();
    const deploy = (version: string, deployedAt?: string) => a.call('POST', '/v1/manage/deploys', { version, ...(deployedAt === undefined ? {} : { deployed_at: deployedAt }) });

    const refused = [
      ['ahead', iso(now + MIN + 1), 'must not be in the future'],
      ['old', iso(now - 48 * HOUR - 1), 'must not be more than 48 hours ago'],
      ['far-ahead', iso(now + DAY), 'must not be in the future'],
    ] as const;
    for (const [version, at, reason] of refused) {
      const res = await deploy(version, at);
      expect(res.status, `${at}: ${res.raw}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_input', details: { field: 'deployed_at', reason } });
    }
    const notATime = await deploy('garbled', 'yesterday at noon');
    expect(notATime.status, notATime.raw).toBe(400);
    expect(notATime.body.error.code).toBe('invalid_input');
    expect((await a.get('/v1/query/deploys')).total).toBe(0);

    for (const [version, at] of [['edge-ahead', now + MIN], ['edge-old', now - 48 * HOUR], ['recent', now - HOUR]] as const) {
      const res = await deploy(version, iso(at));
      expect(res.status, `${iso(at)}: ${res.raw}`).toBe(201);
      expect(res.body.data).toMatchObject({ version, deployed_at: iso(at) });
    }
    // No deployed_at: now.
    expect((await deploy('default')).body.data.deployed_at).toBe(iso(now));
    expect((await a.get('/v1/query/deploys')).total).toBe(4);
  });
});

eachDialect('deploy confusion_after', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  // Deploy X at D; deploy Y one millisecond later, so each bound is met by one and missed by the other.
  const D = Date.UTC(2026, 10, 2, 11, 55);
  let siteId: string;
  let a: ReturnType<typeof api>;
  let key: string;
  let x: string;
  let y: string;

  const afterOf = async (id: string) => {
    const d = await a.get(`/v1/query/deploys/${id}`);
    return { confusion_after: d.confusion_after, delta: d.delta, pages_after: d.pages_after, after_computed_at: d.after_computed_at };
  };
  const NOT_YET = { confusion_after: null, delta: null, pages_after: null, after_computed_at: null };
  /** `users` new visitors on `page`, each with one pageview at exactly `when`; the first `rage` also rage-click then. */
  const visits = (page: string, when: number, users: number, rage = 0): Visit[] => intervalTraffic(when, [{ page, users }])
    .map((v, i) => ({
      ...v,
      events: [
        { type: 'pageview', ts: when, page },
        ...(i < rage ? [{ type: 'signal', ts: when, page, signal_type: 'rage_click', element: 'button.pay', label: 'Pay', confidence: 1 }] : []),
      ],
    }));
  const send = async (clockAt: number, traffic: Visit[]) => {
    h.clock.set(clockAt);
    await ingest(h, key, traffic);
  };
  const cycleAt = async (t: number) => {
    h.clock.set(Math.max(h.clock.now(), t));
    await cycle(h, siteId, t);
  };

  beforeAll(async () => {
    const org = await h.org('After');
    siteId = org.site_id;
    key = org.keys.secret;
    a = api(h, key);
    // Before the deploys: 2 visitors rage-clicking, outside every after-window.
    await send(D - 5 * MIN, visits('/checkout', D - 10 * MIN, 2, 2));
    h.clock.set(D + 30_000);
    x = (await a.call('POST', '/v1/manage/deploys', { version: 'x', deployed_at: iso(D) })).body.data.id;
    y = (await a.call('POST', '/v1/manage/deploys', { version: 'y', deployed_at: iso(D + 1) })).body.data.id;
    // No page scores yet when they are recorded: confusion_before 0.
    expect((await a.get(`/v1/query/deploys/${x}`)).confusion_before).toBe(0);
    // After them: 5 visitors on /checkout, one rage click: 25 weighted, 1 of 5 affected (20 %, x1.5):
    // 25 / 5 x 1.5 = 7.5 -> 100 x (1 - e^-0.75) = 52.763 -> 52.8.
    await send(D + 2 * MIN, visits('/checkout', D + MIN, 5, 1));
  });

  it('is null until a cycle 5 minutes after the deploy (to the millisecond), then scores [deployed_at, T)', async () => {
    expect(DEPLOY_SETTLE_MS).toBe(5 * MIN);
    await cycleAt(D + 5 * MIN - 1);
    expect(await afterOf(x)).toEqual(NOT_YET);
    await cycleAt(D + 5 * MIN);
    // The 2 visitors before D are left out (with them: 75 over 7 users, 3 of 7 affected (42.9 %, x2.0):
    // 75 / 7 x 2 = 21.4286 -> 88.3). confusion_before is 0, so delta = 52.8.
    expect(await afterOf(x)).toEqual({ confusion_after: 52.8, delta: 52.8, pages_after: [{ page: '/checkout', score: 52.8, active_users: 5 }], after_computed_at: iso(D + 5 * MIN) });
    expect(await afterOf(y)).toEqual(NOT_YET);
    await cycleAt(D + 5 * MIN + 1);
    expect(await afterOf(y)).toMatchObject({ confusion_after: 52.8, delta: 52.8, after_computed_at: iso(D + 5 * MIN + 1) });
  });

  it('is refreshed by every cycle up to 48 hours after the deploy, then frozen', async () => {
    expect(DEPLOY_TRACK_MS).toBe(48 * HOUR);
    // A day later: 5 more visitors on /checkout without signals: 25 weighted over 10 users, 1 of 10
    // affected (10 %: 100 >= 100, x1.5): 25 / 10 x 1.5 = 3.75 -> 100 x (1 - e^-0.375) = 31.271 -> 31.3.
    await send(D + DAY - 5 * MIN, visits('/checkout', D + DAY - 10 * MIN, 5));
    await cycleAt(D + DAY);
    expect(await afterOf(x)).toEqual({ confusion_after: 31.3, delta: 31.3, pages_after: [{ page: '/checkout', score: 31.3, active_users: 10 }], after_computed_at: iso(D + DAY) });

    // Just before 48 hours: 5 visitors on /pricing without signals: (31.3 x 10 + 0 x 5) / 15 = 20.867 -> 20.9.
    await send(D + 2 * DAY - 5 * MIN, visits('/pricing', D + 2 * DAY - 10 * MIN, 5));
    await cycleAt(D + 2 * DAY);
    const frozen = {
      confusion_after: 20.9, delta: 20.9, after_computed_at: iso(D + 2 * DAY),
      pages_after: [{ page: '/checkout', score: 31.3, active_users: 10 }, { page: '/pricing', score: 0, active_users: 5 }],
    };
    expect(await afterOf(x)).toEqual(frozen);

    // At exactly 48 hours: 5 visitors on /checkout, each rage-clicking. With them /checkout has
    // 6 x 25 = 150 over 15 users, 6 of 15 affected (40 %, x2.0): 150 / 15 x 2 = 20
    // -> 100 x (1 - e^-2) = 86.466 -> 86.5, and the whole (86.5 x 15 + 0 x 5) / 20 = 64.875 -> 64.9 (half up).
    await send(D + 2 * DAY + MIN, visits('/checkout', D + 2 * DAY, 5, 5));
    await cycleAt(D + 2 * DAY + 1);
    // X is past 48 hours: kept as it was. Y (1 ms younger) is refreshed one last time.
    expect(await afterOf(x)).toEqual(frozen);
    expect(await afterOf(y)).toMatchObject({ confusion_after: 64.9, delta: 64.9, after_computed_at: iso(D + 2 * DAY + 1) });
    const yFinal = await afterOf(y);

    // Later cycles leave both alone, though the window would now hold more.
    await send(D + 2 * DAY + 10 * MIN, visits('/checkout', D + 2 * DAY + 5 * MIN, 5, 5));
    await cycleAt(D + 2 * DAY + 15 * MIN);
    expect(await afterOf(x)).toEqual(frozen);
    expect(await afterOf(y)).toEqual(yFinal);
  });
});
