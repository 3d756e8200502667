// Pure: a seed and options -> the simulated traffic (ingest batches in the SDK's wire format)
// and the story around it (deploys, fixes, annotations, alert rules). The same seed and options
// always give the same output; nothing here reads the clock or does I/O. Sending and storing
// are in run.ts.
import { DAY_MS, HOUR_MS } from '../domain/time.ts';
import { Prng } from './prng.ts';
import {
  BLOG_SLUGS, DEVICES, ENTRIES, EXIT, HOURLY, ORDER_VALUES, PAGES, PLAN_VALUES, PROBLEMS, REFERRERS, SITE_ORIGIN,
  TIMELINE, VERSIONS, WEEKDAY, type DeviceSpec, type ElementSpec,
} from './scenario.ts';

const MAX_PAGES_PER_SESSION = 14;
const MAX_EVENTS_PER_BATCH = 250;

export interface SimulateOptions {
  /** Days of traffic, ending at `end`. */
  days: number;
  sessionsPerDay: number;
  seed: string;
  /** End of the simulated period (ms); the CLI defaults it to now. */
  end: number;
}

/** One ingest batch, as the SDK would send it (without the key). */
export interface SimBatch {
  sid: string;
  vid: string;
  url: string;
  ts: number;
  env: string;
  meta: { viewport_w: number; viewport_h: number; ua: string; app_version: string };
  events: SimEvent[];
}

export type SimEvent =
  | { type: 'pageview'; id: string; ts: number; page: string; referrer_page?: string; referrer?: string }
  | { type: 'signal'; id: string; ts: number; page: string; signal_type: string; element?: string; label?: string; confidence?: number;
      hx?: number; hy?: number; vx?: number; vy?: number; count?: number; duration_ms?: number }
  | { type: 'track'; id: string; ts: number; page: string; name: string; props?: Record<string, unknown> }
  | { type: 'identify'; id: string; ts: number; page: string; user_ref: string };

export type SimAction =
  | { at: number; kind: 'deploy'; version: string; description: string; commit_sha: string }
  | { at: number; kind: 'resolve'; page: string; element: string; types: readonly string[]; note: string }
  | { at: number; kind: 'annotate'; page?: string; message: string }
  | { at: number; kind: 'rule'; rule: AlertRuleSpec };

export interface AlertRuleSpec {
  name: string;
  trigger_type: 'spike' | 'budget' | 'co_occurrence' | 'revenue_threshold';
  threshold: number;
  page_pattern?: string;
  cooldown_minutes: number;
  channels: string[];
  config?: Record<string, unknown>;
}

export interface SimPlan {
  start: number;
  end: number;
  seed: string;
  batches: SimBatch[];
  /** In time order. */
  actions: SimAction[];
  /** Created at the start, so they can fire during the period. */
  rules: AlertRuleSpec[];
  sessions: number;
  events: number;
}

export const ALERT_RULES: readonly AlertRuleSpec[] = [
  { name: 'Checkout friction budget', trigger_type: 'budget', threshold: 60, page_pattern: '/checkout*', cooldown_minutes: 240, channels: ['webhook', 'email'], config: { period: 'daily' } },
  { name: 'Score spike (after deploys too)', trigger_type: 'spike', threshold: 40, page_pattern: '*', cooldown_minutes: 180, channels: ['webhook'] },
  { name: 'One element, several kinds of friction', trigger_type: 'co_occurrence', threshold: 6, page_pattern: '*', cooldown_minutes: 360, channels: ['webhook'] },
];

/** Added near the end of the story (the team asked for it late), so it fires once it exists. */
export const REVENUE_RULE: AlertRuleSpec = { name: 'Revenue at risk over $200 a month', trigger_type: 'revenue_threshold', threshold: 200, cooldown_minutes: 1440, channels: ['webhook', 'email'] };
const REVENUE_RULE_BEFORE_END_MS = 3 * HOUR_MS;

/** What is broken at a given time. */
export interface Phase {
  version: string;
  searchBroken: number;
  cardBroken: boolean;
  couponBroken: boolean;
}

export function phaseAt(at: number, start: number, end: number): Phase {
  const f = (end - start) > 0 ? (at - start) / (end - start) : 1;
  const version = f >= TIMELINE.badDeploy ? VERSIONS.badDeploy : f >= TIMELINE.cardFix ? VERSIONS.cardFix
    : f >= TIMELINE.searchFix ? VERSIONS.searchFix : f >= TIMELINE.routineDeploy ? VERSIONS.routineDeploy : VERSIONS.initial;
  return {
    version,
    // Share of searches that hit the dead filter button: broken, fixed, then back (and worse).
    searchBroken: f < TIMELINE.searchFix ? 0.32 : f >= TIMELINE.badDeploy ? 0.65 : 0,
    cardBroken: f < TIMELINE.cardFix,
    couponBroken: f >= TIMELINE.badDeploy,
  };
}

interface Visitor { vid: string; device: DeviceSpec; ua: string; width: number; height: number; userRef: string | null }

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

class SessionBuilder {
  readonly events: SimEvent[] = [];
  constructor(private readonly rng: Prng, private readonly visitor: Visitor) {}

  private id() { return this.rng.hex(24); }

  pageview(ts: number, page: string, referrerPage?: string, referrer?: string) {
    const e: SimEvent = { type: 'pageview', id: this.id(), ts, page };
    if (referrerPage) e.referrer_page = referrerPage;
    if (referrer) e.referrer = referrer;
    this.events.push(e);
  }

  /** A click-based signal with its heatmap point (in the element, and in the viewport). */
  click(ts: number, page: string, type: string, element: ElementSpec, extra: { confidence?: number; count?: number; duration_ms?: number; skewX?: number } = {}) {
    const { rng } = this;
    const mobile = this.visitor.device.type === 'mobile';
    const vx = clamp(Math.round((mobile ? 500 + (element.vx - 500) * 0.35 : element.vx) + rng.between(-25, 25)), 0, 1000);
    const vy = clamp(Math.round(element.vy + rng.between(-20, 20)), 0, 1000);
    const e: SimEvent = {
      type: 'signal', id: this.id(), ts, page, signal_type: type, element: element.selector, label: element.label,
      hx: clamp(Math.round(500 + (extra.skewX ?? 0) + rng.logNormal(1, 0.5) * rng.between(-180, 180)), 0, 1000),
      hy: clamp(Math.round(500 + rng.between(-220, 220)), 0, 1000), vx, vy,
    };
    if (extra.confidence !== undefined) e.confidence = extra.confidence;
    if (extra.count !== undefined) e.count = extra.count;
    if (extra.duration_ms !== undefined) e.duration_ms = extra.duration_ms;
    this.events.push(e);
  }

  rage(ts: number, page: string, element: ElementSpec, skewX = 0) {
    const count = this.rng.int(3, 7);
    const duration = this.rng.int(450, 1900);
    // DOMAIN.md: 1.0 up to 1 s, falling linearly to 0.4 at 2 s.
    const confidence = duration <= 1000 ? 1 : Math.round((1 - ((duration - 1000) / 1000) * 0.6) * 100) / 100;
    this.click(ts, page, 'rage_click', element, { confidence, count, duration_ms: duration, skewX });
  }

  signal(ts: number, page: string, type: string, element?: ElementSpec, confidence?: number, extra: { count?: number; duration_ms?: number } = {}) {
    const e: SimEvent = { type: 'signal', id: this.id(), ts, page, signal_type: type, ...extra };
    if (element) { e.element = element.selector; e.label = element.label; }
    if (confidence !== undefined) e.confidence = confidence;
    this.events.push(e);
  }

  track(ts: number, page: string, name: string, props?: Record<string, unknown>) {
    const e: SimEvent = { type: 'track', id: this.id(), ts, page, name };
    if (props) e.props = props;
    this.events.push(e);
  }

  identify(ts: number, page: string, userRef: string) {
    this.events.push({ type: 'identify', id: this.id(), ts, page, user_ref: userRef });
  }
}

const elementOf = (page: string, selector: string): ElementSpec => PAGES[page].elements.find((e) => e.selector === selector)!;

function concretePath(rng: Prng, key: string): string {
  if (key === '/products/:id') return `/products/${rng.int(1000, 9999)}`;
  if (key === '/blog/:slug') return `/blog/${rng.pick(BLOG_SLUGS)}`;
  return key;
}

/**
 * Friction from the detectors added with issue 15, drawn from a stream of its own (`extra`,
 * recorded by `more`) so that every other draw, and so the rest of the story, stays as it was:
 * scrolling back and forth in long articles, a cookie banner that moves "Add to cart", searches
 * retried while the filters are dead, reloads when the coupon fails, a settings form whose Save
 * does nothing, product listings left while still loading.
 */
function newerFriction(extra: Prng, more: SessionBuilder, key: string, path: string, at: (fraction: number) => number, hit: { searchDead: boolean; couponFailed: boolean }) {
  if (key === '/blog/:slug' && extra.chance(0.06)) more.signal(at(extra.between(0.3, 0.8)), path, 'jerky_scrolling', undefined, 0.7);
  if (key === '/products/:id' && extra.chance(0.02)) {
    more.signal(at(0.15), path, 'layout_shift_rage', elementOf('/products/:id', 'button.add-to-cart'), 1, { count: extra.int(3, 5), duration_ms: extra.int(400, 1500) });
  }
  if (key === '/products' && extra.chance(0.03)) more.signal(at(0.99), path, 'load_abandonment', undefined, 1, { duration_ms: extra.int(3500, 9000) });
  if (key === '/settings' && extra.chance(0.3)) more.signal(at(0.7), path, 'dead_end_submit', elementOf('/settings', 'button.save'), 1);
  if (hit.searchDead && extra.chance(0.35)) more.signal(at(0.8), path, 'query_thrashing', elementOf('/search', 'input#q'), 0.8, { count: 3 });
  if (hit.couponFailed && extra.chance(0.3)) more.signal(at(0.7), path, 'reload_retry', undefined, 1, { duration_ms: extra.int(6000, 25_000) });
}

/** One visit of the site: a walk through the pages with friction, conversions and timing. */
function simulateSession(rng: Prng, visitor: Visitor, startAt: number, phase: Phase): SimEvent[] {
  const s = new SessionBuilder(rng, visitor);
  const extra = rng.fork('newer-detectors');
  const more = new SessionBuilder(extra, visitor);
  let key = rng.weighted(ENTRIES);
  let path = concretePath(rng, key);
  let t = startAt;
  let previousPath: string | undefined;
  let previousKey: string | undefined;
  const referrer = rng.weighted(REFERRERS) ?? undefined;
  let cartValue = 0;

  for (let step = 0; step < MAX_PAGES_PER_SESSION; step++) {
    s.pageview(t, path, previousPath, step === 0 ? referrer : undefined);
    const spec = PAGES[key];
    let dwell = clamp(rng.logNormal(spec.dwell, 0.55), 2, 900) * 1000;
    // Weights of the next move; planted problems and conversions change them.
    let next = [...spec.next] as [string, number][];
    const at = (fraction: number) => Math.round(t + dwell * fraction);
    const reweigh = (target: string, factor: number) => { next = next.map(([k, w]) => [k, k === target ? w * factor : w]); };

    // A quick bounce back to the listing they came from: a U-turn (pogo-sticking).
    if ((key === '/products/:id' || key === '/search') && previousKey && previousKey !== key && rng.chance(0.06)) {
      dwell = rng.int(1500, 4000);
      s.signal(at(0.9), path, 'u_turn_navigation', undefined, 0.8);
      next = [[previousKey, 1]];
    }

    // Baseline friction: the odd mis-click (mostly on one-off elements), long articles left
    // half-read, a restless cursor on the pricing table, an occasional failed request.
    if (rng.chance(0.04)) {
      const target = rng.chance(0.3) ? rng.pick(spec.elements) : { selector: `p.copy:nth-of-type(${rng.int(1, 40)})`, label: 'Text', vx: rng.int(100, 900), vy: rng.int(150, 950) };
      s.click(at(rng.between(0.2, 0.8)), path, 'dead_click', target, { confidence: rng.pick([0.6, 1]) });
    }
    if (rng.chance(0.006)) s.rage(at(rng.between(0.2, 0.8)), path, rng.pick(spec.elements));
    if (key === '/blog/:slug' && rng.chance(0.15)) s.signal(at(0.95), path, 'scroll_depth_abandon', undefined, 0.7);
    if (key === '/pricing' && rng.chance(0.05)) s.signal(at(rng.between(0.3, 0.9)), path, 'thrash_cursor', undefined, 0.6);
    if (rng.chance(0.003)) s.signal(at(0.5), path, 'error_encounter', { selector: '', label: 'NetworkError: Failed to fetch', vx: 0, vy: 0 });

    const hit = { searchDead: false, couponFailed: false };
    switch (key) {
      case '/search': {
        const broken = phase.searchBroken;
        if (broken > 0 && rng.chance(broken)) {
          s.click(at(0.55), path, 'dead_click', elementOf('/search', PROBLEMS.searchFilters.selector), { skewX: 120 });
          reweigh(EXIT, 2);
          hit.searchDead = true;
        }
        break;
      }
      case '/products/:id':
        if (rng.chance(0.4)) { cartValue += rng.pick(ORDER_VALUES); s.track(at(0.7), path, 'add_to_cart', { amount_cents: cartValue }); }
        break;
      case '/cart':
        if (phase.couponBroken && rng.chance(0.4)) {
          const coupon = elementOf('/cart', PROBLEMS.brokenCoupon.selector);
          s.signal(at(0.5), path, 'error_encounter', { ...coupon, label: 'Apply coupon' });
          if (rng.chance(0.6)) s.rage(at(0.6), path, coupon, 60);
          reweigh(EXIT, 2.5);
          hit.couponFailed = true;
        }
        break;
      case '/checkout': {
        let completion = 1;
        if (phase.cardBroken && rng.chance(0.35)) {
          const card = elementOf('/checkout', PROBLEMS.failingForm.selector);
          s.signal(at(0.35), path, 'form_validation_loop', card, 1);
          if (rng.chance(0.6)) s.signal(at(0.45), path, 'form_friction', card, 0.8);
          completion *= 0.45;
        }
        if (rng.chance(0.38)) {
          const button = elementOf('/checkout', PROBLEMS.brokenCheckout.selector);
          s.click(at(0.7), path, 'dead_click', button, { skewX: 260 });
          if (rng.chance(0.65)) s.rage(at(0.8), path, button, 260);
          completion *= 0.2;
        }
        reweigh('/checkout/complete', completion);
        if (cartValue === 0) cartValue = rng.pick(ORDER_VALUES);
        break;
      }
      case '/checkout/complete':
        s.track(at(0.1), path, 'checkout_completed', { amount_cents: cartValue || rng.pick(ORDER_VALUES), currency: 'USD' });
        cartValue = 0;
        break;
      case '/pricing':
        if (rng.chance(0.3)) s.track(at(0.6), path, 'plan_intent', { plan: rng.weighted(PLAN_VALUES.map(([p]) => [p, 1] as const)) });
        break;
      case '/signup':
        if (rng.chance(0.04)) s.signal(at(0.3), path, 'form_friction', elementOf('/signup', 'input#email'), 0.8);
        if (rng.chance(0.3)) {
          // The submit stays disabled until the terms box is ticked, and nothing says so.
          s.click(at(0.6), path, 'disabled_element_attempt', elementOf('/signup', PROBLEMS.disabledSubmit.selector), { confidence: 1 });
          reweigh('/onboarding', 0.4);
        }
        break;
      case '/onboarding': {
        const [plan, cents] = rng.weighted(PLAN_VALUES.map((p) => [p, p[0] === 'pro' ? 3 : 1] as const));
        s.track(at(0.5), path, 'subscription_started', { plan, amount_cents: cents, currency: 'USD' });
        break;
      }
      case '/login':
        if (!visitor.userRef) visitor.userRef = `cust_${rng.hex(10)}`;
        s.identify(at(0.8), path, visitor.userRef);
        break;
      default:
        break;
    }

    newerFriction(extra, more, key, path, at, hit);

    const move = rng.weighted(next);
    if (move === EXIT) {
      if (key === '/checkout') s.track(at(0.98), path, 'checkout_abandoned', { amount_cents: cartValue });
      break;
    }
    previousPath = path;
    previousKey = key;
    key = move;
    path = key === '/search' && previousKey === '/search' ? path : concretePath(rng, key);
    t = Math.round(t + dwell);
  }
  // The SDK sends events in the order they happened.
  return [...s.events, ...more.events].map((e, i) => [e, i] as const).sort((a, b) => a[0].ts - b[0].ts || a[1] - b[1]).map(([e]) => e);
}

function newVisitor(rng: Prng): Visitor {
  const device = rng.weighted(DEVICES.map((d) => [d, d.weight] as const));
  const i = rng.int(0, device.widths.length - 1);
  return { vid: rng.hex(32), device, ua: rng.pick(device.uas), width: device.widths[i], height: device.heights[i], userRef: null };
}

/** A session start within [dayStart, dayStart + 1 day), following the hourly traffic curve. */
function startInDay(rng: Prng, dayStart: number): number {
  const max = Math.max(...HOURLY);
  for (;;) {
    const at = dayStart + Math.floor(rng.next() * DAY_MS);
    if (rng.next() * max < HOURLY[new Date(at).getUTCHours()]) return at;
  }
}

function toBatches(visitor: Visitor, sid: string, events: SimEvent[], version: string): SimBatch[] {
  const batches: SimBatch[] = [];
  for (let i = 0; i < events.length; i += MAX_EVENTS_PER_BATCH) {
    const chunk = events.slice(i, i + MAX_EVENTS_PER_BATCH);
    const first = chunk.find((e) => e.type === 'pageview') ?? chunk[0];
    batches.push({
      sid, vid: visitor.vid, url: `${SITE_ORIGIN}${first.page}`, ts: chunk[chunk.length - 1].ts, env: 'production',
      meta: { viewport_w: visitor.width, viewport_h: visitor.height, ua: visitor.ua, app_version: version },
      events: chunk,
    });
  }
  return batches;
}

function validate(options: SimulateOptions) {
  if (!Number.isFinite(options.days) || options.days <= 0 || options.days > 90) throw new RangeError('days must be more than 0 and at most 90');
  if (!Number.isInteger(options.sessionsPerDay) || options.sessionsPerDay < 1 || options.sessionsPerDay > 1_000_000) throw new RangeError('sessions per day must be a whole number from 1 to 1000000');
  if (!Number.isFinite(options.end)) throw new RangeError('end must be a time');
}

/** The whole simulated period: traffic, the story's actions, and the alert rules. */
export function generatePlan(options: SimulateOptions): SimPlan {
  validate(options);
  const end = Math.floor(options.end);
  const start = end - Math.round(options.days * DAY_MS);
  const root = new Prng(`mallard-simulate:${options.seed}`);
  const visitors: Visitor[] = [];
  const sessions: { at: number; batches: SimBatch[] }[] = [];
  const dayCount = Math.ceil(options.days);
  for (let d = 0; d < dayCount; d++) {
    const rng = root.fork(`day-${d}`);
    const dayStart = start + d * DAY_MS;
    const weekday = new Date(dayStart + DAY_MS / 2).getUTCDay();
    const volume = Math.max(1, Math.round(options.sessionsPerDay * WEEKDAY[weekday] * rng.between(0.92, 1.08)));
    for (let n = 0; n < volume; n++) {
      const at = startInDay(rng, dayStart);
      if (at >= end) continue;
      // About a third of visits are by someone who came before.
      const visitor = visitors.length > 20 && rng.chance(0.32) ? rng.pick(visitors) : newVisitor(rng);
      if (!visitors.includes(visitor)) visitors.push(visitor);
      const phase = phaseAt(at, start, end);
      const sid = rng.hex(32);
      const events = simulateSession(rng, visitor, at, phase).filter((e) => e.ts < end);
      if (events.length === 0) continue;
      sessions.push({ at, batches: toBatches(visitor, sid, events, phase.version) });
    }
  }
  sessions.sort((a, b) => a.at - b.at || (a.batches[0].sid < b.batches[0].sid ? -1 : 1));
  const batches = sessions.flatMap((s) => s.batches);
  return {
    start, end, seed: options.seed, batches, actions: storyActions(root.fork('story'), start, end), rules: ALERT_RULES.map((r) => ({ ...r })),
    sessions: sessions.length, events: batches.reduce((n, b) => n + b.events.length, 0),
  };
}

function storyActions(rng: Prng, start: number, end: number): SimAction[] {
  const span = end - start;
  const at = (f: number) => start + Math.round(span * f);
  const sha = () => rng.hex(40);
  const actions: SimAction[] = [
    { at: at(0.08), kind: 'annotate', message: 'Spring newsletter sent to 40,000 subscribers' },
    { at: at(TIMELINE.routineDeploy), kind: 'deploy', version: VERSIONS.routineDeploy, description: 'Routine dependency upgrades', commit_sha: sha() },
    {
      at: at(TIMELINE.searchFix) - HOUR_MS / 2, kind: 'resolve', page: PROBLEMS.searchFilters.page, element: PROBLEMS.searchFilters.selector,
      types: PROBLEMS.searchFilters.types, note: 'Filter button wired to the new search API; shipping in 2.2.0',
    },
    { at: at(TIMELINE.searchFix), kind: 'deploy', version: VERSIONS.searchFix, description: 'Fix the search filter button', commit_sha: sha() },
    {
      at: at(TIMELINE.cardFix) - HOUR_MS / 2, kind: 'resolve', page: PROBLEMS.failingForm.page, element: PROBLEMS.failingForm.selector,
      types: PROBLEMS.failingForm.types, note: 'Card numbers with spaces are accepted now; shipping in 2.3.0',
    },
    { at: at(TIMELINE.cardFix), kind: 'deploy', version: VERSIONS.cardFix, description: 'Accept card numbers with spaces', commit_sha: sha() },
    { at: at(TIMELINE.badDeploy), kind: 'deploy', version: VERSIONS.badDeploy, description: 'Cart and search redesign', commit_sha: sha() },
    { at: at(TIMELINE.badDeploy) + 60_000, kind: 'annotate', page: '/cart', message: 'Cart redesign (2.4.0) shipped' },
    { at: Math.max(start, end - REVENUE_RULE_BEFORE_END_MS), kind: 'rule', rule: { ...REVENUE_RULE } },
  ];
  return actions.sort((a, b) => a.at - b.at);
}

/**
 * Live traffic: `count` sessions that end by `now`, as the site is at the end of the story
 * (the demo's trickle). Deterministic for a given seed and time.
 */
export function generateLiveBatches(seed: string, now: number, count: number): SimBatch[] {
  const rng = new Prng(`mallard-live:${seed}:${now}`);
  const phase = phaseAt(1, 0, 1);
  const out: SimBatch[] = [];
  for (let n = 0; n < count; n++) {
    const visitor = newVisitor(rng);
    const startAt = now - rng.int(0, 5 * 60_000);
    let events = simulateSession(rng, visitor, startAt, phase);
    // Shift the session back so that it ends by now (live events may not be in the future).
    const overshoot = events[events.length - 1].ts - now;
    if (overshoot > 0) events = events.map((e) => ({ ...e, ts: e.ts - overshoot }));
    out.push(...toBatches(visitor, rng.hex(32), events, phase.version));
  }
  return out;
}
