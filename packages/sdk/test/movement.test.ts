import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { thrashCursor } from '../src/detectors/thrash-cursor.ts';
import { jerkyScrolling } from '../src/detectors/jerky-scrolling.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { html, makeContext } from './helpers.ts';

/** Pointer positions along x, `everyMs` apart starting at `from` ms, on `target`. */
function pointer(target: Element, xs: number[], from = 0, everyMs = 50, buttons = 0) {
  xs.forEach((x, i) => {
    const e = new PointerEvent('pointermove', { bubbles: true, clientX: x, clientY: 100, buttons });
    Object.defineProperty(e, 'timeStamp', { value: from + i * everyMs });
    target.dispatchEvent(e);
  });
}

/** `legs` legs of `px` back and forth from 100, in steps of 10 px. */
function zigzag(legs: number, px = 40): number[] {
  const xs = [100];
  for (let leg = 0; leg < legs; leg++) {
    for (let d = 10; d <= px; d += 10) xs.push(leg % 2 === 0 ? 100 + d : 100 + px - d);
  }
  return xs;
}

describe('thrash_cursor', () => {
  const S = DEFAULT_SIGNALS.thrash_cursor;
  beforeEach(() => html('<main><p id="text">Plans</p><button id="pro">Choose Pro</button><canvas id="map"></canvas><div data-mallard-ignore><p id="quiet">x</p></div></main>'));

  it('fires at 6 reversals of 30 px legs within 1500 ms, with the interactive element under the pointer', () => {
    const { ctx, signals } = makeContext();
    const d = thrashCursor(ctx, S);
    pointer(document.getElementById('text')!, zigzag(6, 30), 0, 40);
    expect(signals).toHaveLength(0); // 5 reversals
    pointer(document.getElementById('pro')!, zigzag(7, 30), 1000, 40);
    expect(signals).toEqual([{ type: 'thrash_cursor', el: document.getElementById('pro'), confidence: 0.6 }]);
    d.stop();
  });

  it('no element when the pointer ends on plain content', () => {
    const { ctx, signals } = makeContext();
    const d = thrashCursor(ctx, S);
    pointer(document.getElementById('text')!, zigzag(7), 0, 40);
    expect(signals).toEqual([{ type: 'thrash_cursor', el: null, confidence: 0.6 }]);
    d.stop();
  });

  it('not for short legs, slow movement, a pressed button (a drag), a canvas or an ignored element', () => {
    const { ctx, signals } = makeContext();
    const d = thrashCursor(ctx, S);
    pointer(document.getElementById('text')!, zigzag(10, 20), 0, 20);
    pointer(document.getElementById('text')!, zigzag(7), 10_000, 100); // 28 moves: 2700 ms
    pointer(document.getElementById('text')!, zigzag(7), 20_000, 20, 1);
    pointer(document.getElementById('map')!, zigzag(7), 30_000, 20);
    pointer(document.getElementById('quiet')!, zigzag(7), 40_000, 20);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('at most once per 10 s per page view', () => {
    const { ctx, signals } = makeContext();
    const d = thrashCursor(ctx, S);
    const text = document.getElementById('text')!;
    pointer(text, zigzag(7), 0, 20);
    pointer(text, zigzag(7), 3000, 20);
    expect(signals).toHaveLength(1);
    d.pageview!('/other', 0);
    pointer(text, zigzag(7), 6000, 20);
    pointer(text, zigzag(7), 20_000, 20);
    expect(signals).toHaveLength(3);
    d.stop();
  });
});

describe('jerky_scrolling', () => {
  const S = DEFAULT_SIGNALS.jerky_scrolling;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    Object.assign(window, { innerHeight: 800 });
  });
  afterEach(() => {
    vi.useRealTimers();
    Object.defineProperty(window, 'scrollY', { value: 0, configurable: true });
  });

  const scrollTo = (y: number, afterMs = 300) => {
    vi.advanceTimersByTime(afterMs);
    Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
    window.dispatchEvent(new Event('scroll'));
  };

  it('fires at 4 reversals of a quarter viewport within 3000 ms, counting from where the page was', () => {
    const { ctx, signals } = makeContext();
    const d = jerkyScrolling(ctx, S);
    for (const y of [600, 300, 600, 300]) scrollTo(y);
    expect(signals).toHaveLength(0);
    scrollTo(600);
    expect(signals).toEqual([{ type: 'jerky_scrolling', confidence: 0.7 }]);
    d.stop();
  });

  it('not for short legs, slow reversals or steady reading; at most once per 15 s', () => {
    const { ctx, signals } = makeContext();
    const d = jerkyScrolling(ctx, S);
    for (const y of [150, 0, 150, 0, 150, 0]) scrollTo(y); // 150 px < 200 px
    for (const y of [600, 0, 600, 0, 600]) scrollTo(y, 1000); // 4 reversals over 5 s
    for (let y = 700; y < 5000; y += 300) scrollTo(y, 500);
    expect(signals).toHaveLength(0);
    for (const y of [4600, 5000, 4600, 5000, 4600, 5000, 4600, 5000]) scrollTo(y, 200);
    expect(signals).toHaveLength(1);
    d.stop();
  });
});
