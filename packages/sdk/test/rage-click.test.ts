import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rageClick, rageConfidence } from '../src/detectors/rage-click.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { click, html, makeContext, place } from './helpers.ts';

const S = DEFAULT_SIGNALS.rage_click;

describe('rage_click', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Object.assign(window, { innerWidth: 1000, innerHeight: 500 });
    html('<button id="pay">Pay now</button><button id="other">Other</button>');
    place(document.getElementById('pay')!, 100, 100, 200, 50);
  });
  afterEach(() => vi.useRealTimers());

  it('fires at 3 clicks within 2000 ms, with the burst centroid, count and span', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(300);
    d.click!(click(pay, 160, 120));
    vi.advanceTimersByTime(300);
    d.click!(click(pay, 170, 130));
    expect(signals).toHaveLength(0); // emitted when the burst closes
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(1);
    const s = signals[0];
    expect(s).toMatchObject({ type: 'rage_click', el: pay, confidence: 1, count: 3, duration_ms: 600 });
    // centroid (160, 120): (160-100)/200 = 300, (120-100)/50 = 400; viewport 160/1000, 120/500
    expect([s.hx, s.hy, s.vx, s.vy]).toEqual([300, 400, 160, 240]);
  });

  it('does not count excluded clicks (text selection, editable text, modifier keys)', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    d.click!(click(pay, 150, 110));
    d.click!(click(pay, 150, 110, { excluded: true }));
    d.click!(click(pay, 150, 110, { excluded: true }));
    vi.advanceTimersByTime(5000);
    expect(signals).toHaveLength(0);
  });

  it('does not fire at 2 clicks', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    d.click!(click(pay, 150, 110));
    d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(5000);
    expect(signals).toHaveLength(0);
  });

  it('does not count a click after the window or far away on another element', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    const other = document.getElementById('other')!;
    d.click!(click(pay, 150, 110));
    d.click!(click(pay, 150, 110));
    d.click!(click(other, 400, 300)); // 250+ px away, another element
    vi.advanceTimersByTime(1999);
    d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(2001);
    d.click!(click(pay, 150, 110)); // 2001 ms after the first: a new burst
    vi.advanceTimersByTime(5000);
    expect(signals).toHaveLength(0);
  });

  it('counts clicks within 30 px of the first on other elements', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    const other = document.getElementById('other')!;
    d.click!(click(pay, 150, 110));
    d.click!(click(other, 170, 130));
    d.click!(click(other, 160, 95));
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(1);
    expect(signals[0].el).toBe(pay);
  });

  it('honours configured thresholds', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, { ...S, clicks: 5 });
    const pay = document.getElementById('pay')!;
    for (let i = 0; i < 4; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(0);
    for (let i = 0; i < 5; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(1);
  });

  it('closes an open burst when the page is left', () => {
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const pay = document.getElementById('pay')!;
    for (let i = 0; i < 3; i++) d.click!(click(pay, 150, 110));
    d.leave!();
    expect(signals).toHaveLength(1);
  });

  it('a burst whose every click is answered within 500 ms (a stepper) is purposeful: no signal', async () => {
    html('<section><button id="plus">+</button><span id="count">1</span></section><button id="other">Other</button>');
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const plus = document.getElementById('plus')!;
    for (let i = 0; i < 5; i++) {
      d.click!(click(plus, 5, 5));
      vi.advanceTimersByTime(50);
      document.getElementById('count')!.textContent = String(i + 2);
      await vi.advanceTimersByTimeAsync(100);
    }
    vi.advanceTimersByTime(3000);
    expect(signals).toHaveLength(0);
  });

  it('a burst with one unanswered click is rage; the decision waits for the last click\'s answer', async () => {
    html('<section><button id="plus">+</button><span id="count">1</span></section>');
    const { ctx, signals } = makeContext();
    const d = rageClick(ctx, S);
    const plus = document.getElementById('plus')!;
    for (let i = 0; i < 3; i++) {
      d.click!(click(plus, 5, 5));
      if (i < 2) document.getElementById('count')!.textContent = String(i + 2);
      await vi.advanceTimersByTimeAsync(700);
    }
    // the burst closed at 2000 ms; its last click (1400 ms) had until 1900 ms: decided at 2000
    await vi.advanceTimersByTimeAsync(600);
    expect(signals.map((s) => s.type)).toEqual(['rage_click']);
  });

  it('a burst right after a layout shift that moved its element is layout_shift_rage instead', () => {
    const { ctx, signals } = makeContext();
    const pay = document.getElementById('pay')!;
    const shiftedAt = Date.now();
    const shifted = (el: Element, t: number) => el === pay && t - shiftedAt <= 1000;
    const d = rageClick(ctx, S, true, shifted);
    vi.advanceTimersByTime(400);
    for (let i = 0; i < 3; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(3000);
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 3; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(3000);
    expect(signals.map((s) => [s.type, s.confidence])).toEqual([['layout_shift_rage', 1], ['rage_click', 1]]);
  });

  it('with rage_click off, bursts are still followed for layout_shift_rage only', () => {
    const { ctx, signals } = makeContext();
    const pay = document.getElementById('pay')!;
    let shift = true;
    const d = rageClick(ctx, S, false, () => shift);
    for (let i = 0; i < 3; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(3000);
    shift = false;
    for (let i = 0; i < 3; i++) d.click!(click(pay, 150, 110));
    vi.advanceTimersByTime(3000);
    expect(signals.map((s) => s.type)).toEqual(['layout_shift_rage']);
  });

  it('confidence: 1 up to 1000 ms, 0.4 at 2000 ms, more clicks raise it', () => {
    expect(rageConfidence(1000, 3, S)).toBe(1);
    expect(rageConfidence(1500, 3, S)).toBe(0.7);
    expect(rageConfidence(2000, 3, S)).toBe(0.4);
    expect(rageConfidence(2000, 5, S)).toBe(0.6);
    expect(rageConfidence(500, 9, S)).toBe(1);
  });
});
