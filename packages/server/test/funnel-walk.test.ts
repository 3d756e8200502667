// The funnel walk (features/funnels/walk.ts) and the step parser, pure: tables of sessions with
// the steps each reaches worked out by hand, and the tally's friction and medians.
import { describe, expect, it } from 'vitest';
import { addSession, median, newTally, rate, topSignals, walkSession, type FunnelStep, type Hit, type SignalHit } from '../src/features/funnels/walk.ts';
import { parseSteps, splitSteps } from '../src/features/funnels/steps.ts';
import { matchesPagePattern } from '../src/domain/page-pattern.ts';
import { matchesPattern } from '../src/pipeline/budgets.ts';
import { AppError } from '../src/domain/errors.ts';

const MIN = 60_000;
const page = (value: string, at: number): Hit => ({ at, kind: 'page', value, page: value });
const event = (value: string, at: number, on = '/x'): Hit => ({ at, kind: 'event', value, page: on });
const STEPS: FunnelStep[] = [{ step: '/cart', kind: 'page' }, { step: '/checkout', kind: 'page' }, { step: 'paid', kind: 'event' }];
const W = 60 * MIN;
const depth = (hits: Hit[], steps = STEPS, windowMs = W) => walkSession(steps, hits, windowMs).length;

describe('walkSession', () => {
  it.each([
    ['all three in order', [page('/cart', 0), page('/checkout', MIN), event('paid', 2 * MIN)], 3],
    ['other events between steps', [page('/cart', 0), page('/home', 10), page('/checkout', MIN), page('/faq', 2 * MIN), event('paid', 3 * MIN)], 3],
    ['never entered step 1', [page('/checkout', 0), event('paid', MIN)], 0],
    ['out of order: checkout before cart', [page('/checkout', 0), page('/cart', MIN), event('paid', 2 * MIN)], 1],
    ['a skipped step ends the walk there', [page('/cart', 0), event('paid', MIN)], 1],
    ['repeats count once', [page('/cart', 0), page('/cart', 10), page('/checkout', 20), page('/checkout', 30)], 2],
    ['the last step exactly at the window is in', [page('/cart', 0), page('/checkout', MIN), event('paid', W)], 3],
    ['a millisecond past the window is out', [page('/cart', 0), page('/checkout', MIN), event('paid', W + 1)], 2],
    ['a later start of step 1 can still convert', [page('/cart', 0), page('/cart', 2 * W), page('/checkout', 2 * W + MIN)], 2],
    ['the same event cannot count for two steps', [page('/cart', 0), page('/cart', MIN)], 1],
  ])('%s', (_name, hits, expected) => {
    expect(depth(hits as Hit[])).toBe(expected);
  });

  it('takes the deepest attempt, the earliest on a tie, and a hit counts once', () => {
    const hits = [page('/cart', 0), page('/checkout', MIN), page('/cart', 5 * MIN), page('/checkout', 6 * MIN), event('paid', 7 * MIN)];
    // The first attempt reaches all three steps: /cart 0, /checkout 1 min, paid 7 min.
    expect(walkSession(STEPS, hits, W).map((h) => h.at)).toEqual([0, MIN, 7 * MIN]);
    // With a 6-minute window, the first attempt stops at /checkout; the second (/cart 5) goes on to paid.
    expect(walkSession(STEPS, hits, 6 * MIN).map((h) => h.at)).toEqual([5 * MIN, 6 * MIN, 7 * MIN]);
    // Wildcards: /checkout* then /checkout/complete needs two pageviews.
    const wild: FunnelStep[] = [{ step: '/checkout*', kind: 'page' }, { step: '/checkout/complete', kind: 'page' }];
    expect(depth([page('/checkout/complete', 0)], wild)).toBe(1);
    expect(depth([page('/checkout', 0), page('/checkout/complete', 1)], wild)).toBe(2);
  });

  it('matches event steps by name only and page steps by page only', () => {
    expect(depth([event('/cart', 0), page('/checkout', 1)])).toBe(0);
    expect(depth([page('/cart', 0), page('/checkout', 1), page('paid', 2)])).toBe(2);
  });
});

describe('the tally', () => {
  it('counts entries, conversions, medians, friction on the step\'s page and drops after friction', () => {
    const friction = (type: string) => type !== 'passive_drift';
    const sig = (type: string, on: string, at: number): SignalHit => ({ type, page: on, at });
    const tally = newTally(STEPS);
    // A: completes; a rage click on /cart before leaving it, one on /checkout (not counted at /cart).
    addSession(tally, STEPS, { hits: [page('/cart', 0), page('/checkout', 2 * MIN), event('paid', 3 * MIN)], signals: [sig('rage_click', '/cart', MIN), sig('dead_click', '/checkout', 2 * MIN + 1)] }, W, friction);
    // B: enters /cart, meets a dead click there, leaves: dropped after friction.
    addSession(tally, STEPS, { hits: [page('/cart', 0)], signals: [sig('dead_click', '/cart', 10), sig('passive_drift', '/cart', 20)] }, W, friction);
    // C: reaches /checkout in 4 minutes and stops; only a signal that is not friction.
    addSession(tally, STEPS, { hits: [page('/cart', 0), page('/checkout', 4 * MIN)], signals: [sig('passive_drift', '/checkout', 5 * MIN)] }, W, friction);
    // D: reaches /checkout, a rage click there after the window ended: not met at the step.
    addSession(tally, STEPS, { hits: [page('/cart', 0), page('/checkout', 6 * MIN)], signals: [sig('rage_click', '/checkout', W + 1)] }, W, friction);
    // E: never enters step 1.
    addSession(tally, STEPS, { hits: [page('/checkout', 0)], signals: [sig('rage_click', '/checkout', 1)] }, W, friction);

    expect(tally.map((t) => [t.entered, t.converted, t.droppedAfterFriction])).toEqual([[4, 3, 1], [3, 1, 0], [1, 1, 0]]);
    // Minutes to /checkout: A 2, C 4, D 6 -> median 4; to paid: A 1.
    expect(median(tally[0].msToNext)).toBe(4 * MIN);
    expect(median(tally[1].msToNext)).toBe(MIN);
    expect(median(tally[2].msToNext)).toBeNull();
    expect(Object.fromEntries(tally[0].signals)).toEqual({ rage_click: 1, dead_click: 1 });
    expect(Object.fromEntries(tally[1].signals)).toEqual({ dead_click: 1 });
    // The event step: friction anywhere from paid until the window ends; A had none after 3 minutes.
    expect(tally[2].signals.size).toBe(0);
    expect([...tally[2].pages]).toEqual(['/x']);
  });

  it('median, rate and top signals', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([1, 2, 3, 10])).toBe(3);
    expect(median([1, 2])).toBe(2);
    expect(rate(2, 3)).toBe(0.667);
    expect(rate(0, 0)).toBe(0);
    expect(topSignals(new Map([['b', 2], ['a', 2], ['c', 5], ['d', 1]]), 3)).toEqual({ c: 5, a: 2, b: 2 });
    expect(Object.keys(topSignals(new Map([['b', 2], ['a', 2], ['c', 5]]), 3))).toEqual(['c', 'a', 'b']);
  });
});

describe('steps and page patterns', () => {
  const field = (fn: () => unknown) => {
    try { fn(); } catch (error) { return [(error as AppError).code, (error as AppError).details?.field]; }
    throw new Error('did not throw');
  };

  it('parses page patterns and event names, trimmed', () => {
    expect(parseSteps(splitSteps('/cart, /checkout/* ,checkout_completed'))).toEqual([
      { step: '/cart', kind: 'page' }, { step: '/checkout/*', kind: 'page' }, { step: 'checkout_completed', kind: 'event' },
    ]);
  });

  it.each([
    ['one step', ['/cart']],
    ['eleven steps', Array.from({ length: 11 }, (_, i) => `/p${i}`)],
    ['an empty step', ['/cart', ' ', '/checkout']],
    ['a page with a space', ['/cart', '/check out']],
    ['a page with ?', ['/cart', '/checkout?x=1']],
    ['a double star', ['/cart', '/checkout/**']],
    ['an event name with a control character', ['/cart', 'paid\u0001']],
    ['an event name too long', ['/cart', 'e'.repeat(129)]],
  ])('refuses %s as invalid_input on steps', (_name, steps) => {
    expect(field(() => parseSteps(steps))).toEqual(['invalid_input', 'steps']);
  });

  it('matches * anywhere, case-sensitively; the alert rules\' prefix patterns mean the same', () => {
    expect(matchesPagePattern('/products/*', '/products/:id')).toBe(true);
    expect(matchesPagePattern('/products/*', '/products')).toBe(false);
    expect(matchesPagePattern('/account/*/orders', '/account/:id/orders')).toBe(true);
    expect(matchesPagePattern('/account/*/orders', '/account/:id/orders/2')).toBe(false);
    expect(matchesPagePattern('/Cart', '/cart')).toBe(false);
    expect(matchesPagePattern('/a.b', '/axb')).toBe(false);
    expect(matchesPagePattern('*', '/anything')).toBe(true);
    for (const [pattern, pageName, expected] of [['/checkout*', '/checkout/complete', true], ['/checkout*', '/cart', false], ['*', '/', true], ['', '/x', true], ['/a', '/a', true], ['/a', '/ab', false]] as const) {
      expect(matchesPattern(pattern, pageName)).toBe(expected);
    }
  });
});
