// What answers a click (DOMAIN.md section 2, "Reading the rules precisely"), through the
// dead_click detector that asks it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadClick } from '../src/detectors/dead-click.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { click, html, makeContext } from './helpers.ts';

const S = DEFAULT_SIGNALS.dead_click;
const $ = (id: string) => document.getElementById(id)!;
const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

/** Clicks `id`, lets `answer` run after `afterMs`, and says whether a dead_click came out. */
async function dead(id: string, answer: () => void, afterMs = 100): Promise<boolean> {
  const { ctx, signals, stop } = makeContext();
  const d = deadClick(ctx, S, 3);
  d.click!(click($(id), 5, 5));
  vi.advanceTimersByTime(afterMs);
  answer();
  await flushMicrotasks();
  vi.advanceTimersByTime(S.wait_ms);
  d.stop();
  stop();
  return signals.length > 0;
}

describe('what answers a click', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html(`<header><span id="clock"></span><div id="live" aria-live="polite"></div></header>
      <main><section><button id="b">Save</button><p id="near"></p></section>
      <section><p id="far"></p><div id="panel"></div></section>
      <button id="toggle" aria-controls="panel">Details</button></main>
      <div id="toasts"></div><input id="qty" type="number" value="1">`);
  });
  afterEach(() => vi.useRealTimers());

  it('a change in the element or its section answers it; one in another section or landmark does not', async () => {
    expect(await dead('b', () => { $('b').textContent = 'Saved'; })).toBe(false);
    expect(await dead('b', () => { $('near').textContent = 'Saved'; })).toBe(false);
    expect(await dead('b', () => { $('far').textContent = 'Something else'; })).toBe(true);
    expect(await dead('b', () => { $('clock').textContent = '10:00'; })).toBe(true);
  });

  it('what it names with aria-controls, live regions and newly shown dialogs answer it anywhere', async () => {
    expect(await dead('toggle', () => { $('panel').textContent = 'More'; })).toBe(false);
    expect(await dead('b', () => { $('live').textContent = 'Saved'; })).toBe(false);
    expect(await dead('b', () => { $('toasts').innerHTML = '<div role="status">Saved</div>'; })).toBe(false);
    expect(await dead('b', () => { $('toasts').innerHTML = '<dialog open>Sure?</dialog>'; })).toBe(false);
  });

  it('a page without landmarks or sections is one area', async () => {
    html('<button id="b">Add</button><ul id="list"></ul>');
    expect(await dead('b', () => { $('list').innerHTML = '<li>one</li>'; })).toBe(false);
  });

  it('a node that was changing on its own before the click (a clock) is no answer, even in the same area', async () => {
    html('<main><span id="clock"></span><button id="b">Save</button></main>');
    const tick = () => { $('clock').textContent = String(Date.now()); };
    tick();
    await flushMicrotasks();
    const { ctx, signals, stop } = makeContext();
    const d = deadClick(ctx, S, 3);
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(1000);
      tick();
      await flushMicrotasks();
    }
    d.click!(click($('b'), 5, 5));
    for (let i = 0; i < 2; i++) {
      vi.advanceTimersByTime(1000);
      tick();
      await flushMicrotasks();
    }
    expect(signals.map((s) => s.type)).toEqual(['dead_click']);
    d.stop();
    stop();
  });

  it('a result shown late (1.5 s) by an earlier click still answers the next one', async () => {
    html('<main><button id="b">Load more</button><ul id="list"></ul></main>');
    const { ctx, signals, stop } = makeContext();
    const d = deadClick(ctx, S, 3);
    const load = async () => {
      $('b').dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
      d.click!(click($('b'), 5, 5));
      vi.advanceTimersByTime(1500);
      $('list').append(document.createElement('li'));
      await flushMicrotasks();
      vi.advanceTimersByTime(1000);
    };
    await load();
    await load();
    expect(signals).toHaveLength(0);
    d.stop();
    stop();
  });

  it('what follows the user\'s next press elsewhere is not an answer (they moved on)', async () => {
    expect(await dead('b', () => {
      $('near').dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
      $('b').textContent = 'Saved';
      window.dispatchEvent(new Event('scroll'));
    })).toBe(true);
    expect(await dead('b', () => {
      $('b').dispatchEvent(new PointerEvent('pointerdown', { bubbles: true })); // another press on the same button
      $('near').textContent = 'Saved';
    })).toBe(false);
  });

  it('a value set by script (a stepper), a navigation starting (a download) and a form reset answer it', async () => {
    expect(await dead('b', () => { ($('qty') as HTMLInputElement).value = '2'; })).toBe(true); // another area
    html('<main><button id="b">+</button><input id="qty" type="number" value="1"></main>');
    expect(await dead('b', () => { ($('qty') as HTMLInputElement).value = '2'; })).toBe(false);
    expect(await dead('b', () => window.dispatchEvent(new Event('beforeunload')))).toBe(false);
    html('<form id="f"><input id="i"><button id="b" type="reset">Clear</button></form>');
    expect(await dead('b', () => $('f').dispatchEvent(new Event('reset')))).toBe(false);
  });

  it('restores the input value setter when stopped', () => {
    const before = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set;
    const { stop } = makeContext();
    expect(Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set).not.toBe(before);
    stop();
    expect(Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set).toBe(before);
  });
});
