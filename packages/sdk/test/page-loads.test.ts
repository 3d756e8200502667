import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reloadRetry } from '../src/detectors/reload-retry.ts';
import { loadAbandonment } from '../src/detectors/load-abandonment.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { makeContext } from './helpers.ts';

/** A page load as the detectors see it: when navigation started and how. */
function load(ctx: ReturnType<typeof makeContext>['ctx'], timeOrigin: number, type = 'navigate') {
  const performance = { timeOrigin, getEntriesByType: () => [{ type }] };
  return { ...ctx, win: Object.assign(new EventTarget(), { performance }) as unknown as Window };
}

describe('reload_retry', () => {
  const S = DEFAULT_SIGNALS.reload_retry;

  it('fires when the page is reloaded within 30 s of its previous load; 0.7 without friction before', () => {
    const { ctx, signals } = makeContext();
    reloadRetry(load(ctx, 100_000), S).pageview!('/cart', 0);
    reloadRetry(load(ctx, 112_000, 'reload'), S).pageview!('/cart', 0);
    expect(signals).toEqual([{ type: 'reload_retry', confidence: 0.7, duration_ms: 12_000 }]);
  });

  it('1.0 when the view reloaded had a friction signal', () => {
    const { ctx, signals } = makeContext();
    const first = reloadRetry(load(ctx, 100_000), S);
    first.pageview!('/cart', 0);
    first.friction!();
    reloadRetry(load(ctx, 105_000, 'reload'), S).pageview!('/cart', 0);
    expect(signals.map((s) => s.confidence)).toEqual([1]);
  });

  it('not after 30 s, not for a navigation that is no reload; one signal for reloads within 60 s', () => {
    const { ctx, signals } = makeContext();
    reloadRetry(load(ctx, 0), S).pageview!('/a', 0);
    reloadRetry(load(ctx, 30_001, 'reload'), S).pageview!('/a', 0);
    reloadRetry(load(ctx, 40_000, 'navigate'), S).pageview!('/a', 0);
    expect(signals).toHaveLength(0);
    for (const at of [45_000, 50_000, 70_000, 90_000]) reloadRetry(load(ctx, at, 'reload'), S).pageview!('/a', 0);
    expect(signals).toHaveLength(1);
    reloadRetry(load(ctx, 110_000, 'reload'), S).pageview!('/a', 0);
    expect(signals).toHaveLength(2);
  });

  it('a later view in the same load (an SPA route) keeps the load\'s start but forgets earlier friction', () => {
    const { ctx, signals } = makeContext();
    const first = reloadRetry(load(ctx, 0), S);
    first.pageview!('/a', 0);
    first.friction!();
    first.pageview!('/b', 3000);
    reloadRetry(load(ctx, 10_000, 'reload'), S).pageview!('/b', 0);
    expect(signals).toEqual([{ type: 'reload_retry', confidence: 0.7, duration_ms: 10_000 }]);
  });
});

describe('load_abandonment', () => {
  const S = DEFAULT_SIGNALS.load_abandonment;
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: 50_000 }));
  afterEach(() => vi.useRealTimers());

  function page(readyState: string) {
    const { ctx, signals } = makeContext();
    const win = Object.assign(new EventTarget(), { performance: { timeOrigin: 47_000 } }) as unknown as Window;
    return { ctx: { ...ctx, win, doc: { readyState } as Document }, signals, win };
  }

  it('fires when the page is left before its load event, 3000 ms or more after navigation start, once', () => {
    const { ctx, signals } = page('interactive');
    const d = loadAbandonment(ctx, S);
    d.leave!();
    d.leave!();
    expect(signals).toEqual([{ type: 'load_abandonment', confidence: 1, duration_ms: 3000 }]);
  });

  it('counts a page that never reached DOMContentLoaded; not before 3000 ms; not once loaded', () => {
    const early = page('loading');
    vi.setSystemTime(49_999);
    loadAbandonment(early.ctx, S).leave!();
    expect(early.signals).toHaveLength(0);
    vi.setSystemTime(60_000);
    const loading = page('loading');
    loadAbandonment(loading.ctx, S).leave!();
    expect(loading.signals).toHaveLength(1);
    const loaded = page('interactive');
    const d = loadAbandonment(loaded.ctx, S);
    loaded.win.dispatchEvent(new Event('load'));
    d.leave!();
    loadAbandonment(page('complete').ctx, S).leave!();
    expect(loaded.signals).toHaveLength(0);
  });
});
