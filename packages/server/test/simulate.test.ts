// The traffic simulator: a pure function of its seed and options (same seed, same batches;
// another seed, other batches), producing valid wire-format batches with the planted problems
// where the story puts them; and its senders, over HTTP and into a store.
import { describe, expect, it } from 'vitest';
import { Prng } from '../src/simulate/prng.ts';
import { DAY_MS } from '../src/domain/time.ts';
import { generateLiveBatches, generatePlan, phaseAt, type SimBatch, type SimEvent } from '../src/simulate/generate.ts';
import { PROBLEMS, TIMELINE } from '../src/simulate/scenario.ts';
import { backfillTimes, sendOverHttp } from '../src/simulate/run.ts';
import { runSimulate, type SimulateCliOptions } from '../src/simulate/cli.ts';
import { checkBatch, EVENT_CHECKS } from '../src/ingest/schemas.ts';
import { ManualClock } from '../src/clock.ts';
import { createTestStore, T0, testConfig, useHarness } from './helpers/harness.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { Secrets } from '../src/auth/secrets.ts';

const END = Date.UTC(2026, 10, 20, 15, 7, 0);
const OPTIONS = { days: 3, sessionsPerDay: 120, seed: 'alpha', end: END };

describe('Prng', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const run = (seed: string) => { const r = new Prng(seed); return Array.from({ length: 50 }, () => r.next()); };
    expect(run('a')).toEqual(run('a'));
    expect(run('a')).not.toEqual(run('b'));
    const r = new Prng('x');
    for (let i = 0; i < 1000; i++) {
      const v = r.next();
      expect(v >= 0 && v < 1).toBe(true);
      const n = r.int(3, 7);
      expect(n >= 3 && n <= 7 && Number.isInteger(n)).toBe(true);
    }
    expect(new Prng('h').hex(32)).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('generatePlan', () => {
  const plan = generatePlan(OPTIONS);
  const events = plan.batches.flatMap((b) => b.events.map((e) => ({ batch: b, e })));
  const signals = (type: string, selector?: string) => events.filter(({ e }) => e.type === 'signal' && e.signal_type === type && (selector === undefined || e.element === selector));

  it('is deterministic: the same seed and options give identical batches and story', () => {
    const again = generatePlan({ ...OPTIONS });
    expect(again).toEqual(plan);
    expect(JSON.stringify(again.batches)).toBe(JSON.stringify(plan.batches));
  });

  it('changes with the seed (and with the options)', () => {
    const other = generatePlan({ ...OPTIONS, seed: 'beta' });
    expect(other.batches).not.toEqual(plan.batches);
    expect(other.batches[0].sid).not.toBe(plan.batches[0].sid);
    expect(generatePlan({ ...OPTIONS, sessionsPerDay: 121 }).batches).not.toEqual(plan.batches);
  });

  it('produces valid ingest batches inside the period, with unique ids', () => {
    expect(plan.sessions).toBeGreaterThan(250);
    expect(plan.end - plan.start).toBe(3 * DAY_MS);
    const ids = new Set<string>();
    for (const batch of plan.batches) {
      expect(checkBatch.Check(batch), JSON.stringify(batch).slice(0, 200)).toBe(true);
      expect(batch.events.length).toBeLessThanOrEqual(250);
      expect(batch.sid).toMatch(/^[0-9a-f]{32}$/);
      for (const e of batch.events) {
        expect(EVENT_CHECKS[e.type].Check(e), JSON.stringify(e)).toBe(true);
        expect(e.ts >= plan.start && e.ts < plan.end).toBe(true);
        expect(ids.has(e.id)).toBe(false);
        ids.add(e.id);
      }
      const times = batch.events.map((e) => e.ts);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
    expect(new Set(plan.batches.map((b) => b.meta.ua)).size).toBeGreaterThan(3);
    expect(new Set(plan.batches.map((b) => b.meta.viewport_w)).size).toBeGreaterThan(5);
  });

  it('plants the problems where the story puts them', () => {
    const at = (f: number) => plan.start + (plan.end - plan.start) * f;
    const place = PROBLEMS.brokenCheckout.selector;
    expect(signals('dead_click', place).length).toBeGreaterThan(10);
    expect(signals('rage_click', place).length).toBeGreaterThan(5);
    for (const { e } of signals('rage_click', place)) expect(e).toMatchObject({ count: expect.any(Number), duration_ms: expect.any(Number), hx: expect.any(Number), vy: expect.any(Number) });
    expect(signals('disabled_element_attempt', PROBLEMS.disabledSubmit.selector).length).toBeGreaterThan(5);
    // The card form fails until its fix; the search filter is dead, fixed, then back after the bad deploy.
    const card = signals('form_validation_loop', PROBLEMS.failingForm.selector);
    expect(card.length).toBeGreaterThan(5);
    expect(card.every(({ batch }) => batch.events[0].ts < at(TIMELINE.cardFix))).toBe(true);
    const search = signals('dead_click', PROBLEMS.searchFilters.selector);
    expect(search.some(({ batch }) => batch.events[0].ts < at(TIMELINE.searchFix))).toBe(true);
    expect(search.some(({ batch }) => batch.events[0].ts >= at(TIMELINE.badDeploy))).toBe(true);
    expect(search.every(({ batch }) => batch.events[0].ts < at(TIMELINE.searchFix) || batch.events[0].ts >= at(TIMELINE.badDeploy))).toBe(true);
    const coupon = signals('error_encounter', PROBLEMS.brokenCoupon.selector);
    expect(coupon.length).toBeGreaterThan(0);
    expect(coupon.every(({ batch }) => batch.events[0].ts >= at(TIMELINE.badDeploy))).toBe(true);
    // A baseline of normal friction elsewhere, and conversions with their value.
    expect(signals('u_turn_navigation').length).toBeGreaterThan(0);
    const conversions = events.filter(({ e }) => e.type === 'track' && (e.name === 'checkout_completed' || e.name === 'subscription_started'));
    expect(conversions.length).toBeGreaterThan(20);
    for (const { e } of conversions) expect((e as Extract<SimEvent, { type: 'track' }>).props?.amount_cents).toBeGreaterThan(0);
    expect(phaseAt(at(0.9), plan.start, plan.end)).toMatchObject({ version: '2.4.0', couponBroken: true, cardBroken: false });
  });

  it('plants friction of the newer detectors too', () => {
    const at = (f: number) => plan.start + (plan.end - plan.start) * f;
    for (const type of ['jerky_scrolling', 'layout_shift_rage', 'load_abandonment', 'dead_end_submit', 'query_thrashing', 'reload_retry']) {
      expect(signals(type).length, type).toBeGreaterThan(0);
    }
    expect(signals('query_thrashing').every(({ e }) => e.page === '/search')).toBe(true);
    expect(signals('reload_retry').every(({ e }) => e.page === '/cart' && e.ts >= at(TIMELINE.badDeploy))).toBe(true);
    for (const { e } of signals('layout_shift_rage')) expect(e).toMatchObject({ element: 'button.add-to-cart', count: expect.any(Number), duration_ms: expect.any(Number) });
  });

  it('tells the story in order: rules, deploys, fixes before their deploys, a late revenue rule', () => {
    expect(plan.rules.map((r) => r.trigger_type)).toEqual(['budget', 'spike', 'co_occurrence']);
    const kinds = plan.actions.map((a) => a.kind);
    expect(kinds.filter((k) => k === 'deploy')).toHaveLength(4);
    expect(kinds.filter((k) => k === 'resolve')).toHaveLength(2);
    expect(plan.actions.map((a) => a.at)).toEqual([...plan.actions.map((a) => a.at)].sort((a, b) => a - b));
    expect(plan.actions.at(-1)).toMatchObject({ kind: 'rule', rule: { trigger_type: 'revenue_threshold' } });
  });

  it('refuses out-of-range options', () => {
    expect(() => generatePlan({ ...OPTIONS, days: 0 })).toThrow(RangeError);
    expect(() => generatePlan({ ...OPTIONS, days: 91 })).toThrow(RangeError);
    expect(() => generatePlan({ ...OPTIONS, sessionsPerDay: 0 })).toThrow(RangeError);
  });
});

describe('live batches and the backfill schedule', () => {
  it('live sessions are deterministic for a seed and time and end by then', () => {
    const a = generateLiveBatches('s', END, 5);
    expect(generateLiveBatches('s', END, 5)).toEqual(a);
    expect(generateLiveBatches('t', END, 5)).not.toEqual(a);
    expect(a.flatMap((b) => b.events).every((e) => e.ts <= END && e.ts > END - DAY_MS)).toBe(true);
  });

  it('backfills hourly, then at the interval for the last 12 hours, in order', () => {
    const times = backfillTimes(END - 3 * DAY_MS, END, 15 * 60_000);
    const ats = times.map((t) => t.at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    expect(new Set(ats).size).toBe(ats.length);
    expect(times.filter((t) => t.windowMs === 60 * 60_000).length).toBeGreaterThan(55);
    expect(times.filter((t) => t.windowMs === 15 * 60_000).length).toBe(48);
    expect(ats.at(-1)).toBeLessThanOrEqual(END);
    // No traffic is skipped: each cycle's window reaches back to the previous cycle.
    for (const span of [3, 14]) {
      const all = backfillTimes(END - span * DAY_MS, END, 15 * 60_000);
      for (let i = 1; i < all.length; i++) expect(all[i].at - all[i - 1].at).toBeLessThanOrEqual(all[i].windowMs);
      expect(all.at(-1)!.at).toBeGreaterThan(END - 15 * 60_000);
    }
  });
});

describe('mallard simulate', () => {
  const base: SimulateCliOptions = { days: '1', sessionsPerDay: '30', seed: 'cli', until: new Date(END).toISOString(), pipeline: true, ndjson: true };
  const clock = new ManualClock(END);
  const usage = (message: string) => new Error(`usage: ${message}`);
  const lines = async (opts: SimulateCliOptions) => {
    const out: string[] = [];
    await runSimulate(opts, () => { throw new Error('no store needed'); }, clock, usage, (line) => out.push(line));
    return out;
  };

  it('prints the same JSON lines for the same seed, other lines for another', async () => {
    const a = await lines(base);
    expect(a.length).toBeGreaterThan(10);
    expect(await lines({ ...base })).toEqual(a);
    expect(await lines({ ...base, seed: 'other' })).not.toEqual(a);
    expect((JSON.parse(a[0]) as SimBatch).sid).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses bad arguments with a one-line reason', async () => {
    await expect(lines({ ...base, days: '0' })).rejects.toThrow(/--days/);
    await expect(lines({ ...base, sessionsPerDay: 'many' })).rejects.toThrow(/--sessions-per-day/);
    // The plan is held in memory: a run is bounded in sessions, not only per option.
    await expect(lines({ ...base, days: '90', sessionsPerDay: '3000' })).rejects.toThrow(/at most 200000 sessions in one run, got 270000/);
    await expect(lines({ ...base, until: 'yesterday' })).rejects.toThrow(/--until/);
    await expect(lines({ ...base, ndjson: false })).rejects.toThrow(/--site .*--url/);
    await expect(lines({ ...base, ndjson: false, url: 'http://127.0.0.1:1' })).rejects.toThrow(/--key/);
    await expect(lines({ ...base, ndjson: false, url: 'http://127.0.0.1:1', key: 'nope' })).rejects.toThrow(/--key/);
    await expect(lines({ ...base, ndjson: false, site: 'not-a-uuid' })).rejects.toThrow(/--site/);
  });
});

describe('sending to a server over HTTP', () => {
  const h = useHarness('sqlite');

  // fetch, answered by the app in-process.
  const viaApp: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const res = await h.app.inject({ method: 'POST', url: url.pathname, headers: init?.headers as Record<string, string>, payload: String(init?.body) });
    return new Response(res.body, { status: res.statusCode });
  };

  it('a publishable key sends live traffic; a secret key imports with the simulated times', async () => {
    const org = await h.org('Sim');
    const plan = generatePlan({ days: 1, sessionsPerDay: 25, seed: 'http', end: T0 });
    const live = await sendOverHttp({ url: 'http://mallard.test', key: org.keys.publishable, batches: plan.batches, import: false, fetchImpl: viaApp });
    expect(live).toEqual({ accepted: plan.events, rejected: 0 });
    const other = generatePlan({ days: 1, sessionsPerDay: 25, seed: 'http-import', end: T0 });
    const imported = await sendOverHttp({ url: 'http://mallard.test/', key: org.keys.secret, batches: other.batches, import: true, fetchImpl: viaApp });
    expect(imported).toEqual({ accepted: other.events, rejected: 0 });
    const oldest = await h.store.db.selectFrom('events').select((eb) => eb.fn.min('occurred_at').as('t')).where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(Number(oldest.t)).toBeGreaterThanOrEqual(other.start);
    expect(Number(oldest.t)).toBeLessThan(T0 - 12 * 60 * 60_000);
  });
});

describe('mallard simulate --site (into this store)', () => {
  it('stores the traffic through the ingest route, runs the story and the pipeline, and revokes its temporary key', async () => {
    const testStore = await createTestStore('sqlite');
    try {
      const config = testConfig({ databaseUrl: testStore.url });
      const org = await bootstrapOrg(testStore.store, new Secrets(config.secret), { org: 'Sim', siteName: 'Sim', siteUrl: 'https://sim.example', email: 'sim@example.com', password: 'password-sim-1' }, END - 2 * DAY_MS);
      const out: string[] = [];
      const opts: SimulateCliOptions = { days: '1', sessionsPerDay: '40', seed: 'store', until: new Date(END).toISOString(), site: org.site_id, pipeline: true };
      await runSimulate(opts, () => config, new ManualClock(END), (m) => new Error(m), (line) => out.push(line));
      expect(out.at(-1)).toMatch(/^Done: \d+ events stored \(0 rejected\), 4 alert rules, 4 deploys/);
      const db = testStore.store.db;
      const n = async (table: 'events' | 'deploys' | 'score_history' | 'alert_rules') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', org.site_id).executeTakeFirstOrThrow()).n);
      expect(await n('events')).toBeGreaterThan(50);
      expect(await n('deploys')).toBe(4);
      expect(await n('score_history')).toBeGreaterThan(0);
      const temporary = await db.selectFrom('api_keys').select(['id', 'revoked_at', 'created_by']).where('created_by', '=', 'simulate').execute();
      expect(temporary).toHaveLength(1);
      expect(temporary[0].revoked_at).not.toBeNull();
      // The CLI's key writes are in the audit log like any other.
      const audited = await db.selectFrom('audit_log').select(['action', 'actor_type']).where('target_id', '=', temporary[0].id).orderBy('created_at').execute();
      expect(audited).toEqual([{ action: 'key.created', actor_type: 'system' }, { action: 'key.revoked', actor_type: 'system' }]);
      // A second run adds no second copy of the rules.
      await runSimulate({ ...opts, seed: 'store-2', pipeline: false }, () => config, new ManualClock(END), (m) => new Error(m), (line) => out.push(line));
      expect(await n('alert_rules')).toBe(4);
    } finally {
      await testStore.drop();
    }
  }, 120_000);
});
