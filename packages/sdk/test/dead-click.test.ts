import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadClick } from '../src/detectors/dead-click.ts';
import { rageClick } from '../src/detectors/rage-click.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { click, html, makeContext, place } from './helpers.ts';

const S = DEFAULT_SIGNALS.dead_click;
const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('dead_click', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html('<button id="b">Nothing</button><div id="out"></div><input id="field">');
    place(document.getElementById('b')!, 0, 0, 100, 40);
  });
  afterEach(() => vi.useRealTimers());

  it('fires when nothing responds within 2000 ms, and not before', () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    d.click!(click(document.getElementById('b')!, 25, 10));
    vi.advanceTimersByTime(1999);
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'dead_click', confidence: 1, hx: 250, hy: 250 });
    d.stop();
  });

  it('does not fire when the DOM changes after the click', async () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    d.click!(click(document.getElementById('b')!, 25, 10));
    document.getElementById('out')!.textContent = 'Saved';
    await flushMicrotasks();
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('does not fire after a scroll, a focus change or a URL change', () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    const b = document.getElementById('b')!;
    d.click!(click(b, 25, 10));
    window.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(2000);
    d.click!(click(b, 25, 10));
    document.getElementById('field')!.focus();
    vi.advanceTimersByTime(2000);
    d.click!(click(b, 25, 10));
    history.pushState({}, '', '/elsewhere');
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('does not fire when a control changes (a checkbox toggled through its label)', () => {
    html('<label id="l" style="cursor: pointer"><input type="checkbox" id="c"> Remember me</label>');
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    d.click!(click(document.getElementById('l')!, 5, 5, { interactive: false, looks: true }));
    document.getElementById('c')!.dispatchEvent(new Event('change', { bubbles: true }));
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('only looks interactive: confidence 0.6; neither: nothing', () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    const b = document.getElementById('b')!;
    d.click!(click(b, 25, 10, { interactive: false, looks: true }));
    vi.advanceTimersByTime(2000);
    d.click!(click(b, 25, 10, { interactive: false, looks: false }));
    vi.advanceTimersByTime(2000);
    expect(signals.map((s) => s.confidence)).toEqual([0.6]);
    d.stop();
  });

  it('skips form fields and excluded clicks (modifier, new tab, selection)', () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    d.click!(click(document.getElementById('field')!, 5, 5));
    d.click!(click(document.getElementById('b')!, 5, 5, { excluded: true }));
    vi.advanceTimersByTime(3000);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('a click followed by another on the same element within the wait is not dead; the last one can be', () => {
    const { ctx, signals } = makeContext();
    const d = deadClick(ctx, S, 3);
    const b = document.getElementById('b')!;
    d.click!(click(b, 25, 10));
    vi.advanceTimersByTime(500);
    d.click!(click(b, 25, 10));
    vi.advanceTimersByTime(2000);
    expect(signals).toHaveLength(1); // the second click only
    d.stop();
  });

  it('clicks that form a rage burst give the rage_click and no dead_click', () => {
    const { ctx, signals } = makeContext();
    const rage = rageClick(ctx, DEFAULT_SIGNALS.rage_click);
    const dead = deadClick(ctx, S, 3);
    const b = document.getElementById('b')!;
    for (let i = 0; i < 3; i++) {
      const c = click(b, 25, 10);
      rage.click!(c);
      dead.click!(c);
      vi.advanceTimersByTime(100);
    }
    vi.advanceTimersByTime(5000);
    expect(signals.map((s) => s.type)).toEqual(['rage_click']);
    dead.stop();
  });
});
