import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { disabledElementAttempt } from '../src/detectors/disabled-element.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { html, makeContext, place } from './helpers.ts';

const S = DEFAULT_SIGNALS.disabled_element_attempt;

function press(el: Element, x = 10, y = 10) {
  el.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, button: 0, clientX: x, clientY: y }));
}

describe('disabled_element_attempt', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    html(`<form><button id="submit" type="submit" disabled><span id="inner">Pay</span></button></form>
      <a id="aria" role="button" aria-disabled="true">Next</a>
      <div inert><button id="inert">Inert</button></div>
      <button id="ok">OK</button>
      <div data-mallard-ignore><button id="ignored" disabled>Toggle</button></div>`);
    place(document.getElementById('submit')!, 0, 0, 100, 40);
  });
  afterEach(() => vi.useRealTimers());

  it('fires at the second press within 5000 ms, not at the first', () => {
    const { ctx, signals } = makeContext();
    const d = disabledElementAttempt(ctx, S);
    press(document.getElementById('submit')!, 20, 10);
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    press(document.getElementById('inner')!, 40, 30);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'disabled_element_attempt', el: document.getElementById('submit'), count: 2, duration_ms: 1000, hx: 300, hy: 500 });
    d.stop();
  });

  it('does not fire when the presses are more than 5000 ms apart', () => {
    const { ctx, signals } = makeContext();
    const d = disabledElementAttempt(ctx, S);
    press(document.getElementById('submit')!);
    vi.advanceTimersByTime(5001);
    press(document.getElementById('submit')!);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('finds an inert control under the pointer when the browser targets its ancestor', () => {
    // Browsers do not hit-test inert elements: the press goes to the nearest ancestor under it.
    html(`<section id="wrap"><form inert><button id="send">Send</button></form><p id="text">Hello</p></section>
      <div id="overlay"></div>`);
    place(document.getElementById('send')!, 100, 100, 80, 30);
    const { ctx, signals } = makeContext();
    const d = disabledElementAttempt(ctx, S);
    const wrap = document.getElementById('wrap')!;
    press(wrap, 300, 300); // nowhere near the control
    press(document.getElementById('overlay')!, 120, 110); // something else drawn over it
    press(document.getElementById('text')!, 120, 110);
    expect(signals).toHaveLength(0);
    press(wrap, 120, 110);
    press(wrap, 140, 115);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'disabled_element_attempt', el: document.getElementById('send'), count: 2, hx: 375, hy: 417 });
    d.stop();
  });

  it('covers aria-disabled and inert controls, never enabled or ignored ones', () => {
    const { ctx, signals } = makeContext();
    const d = disabledElementAttempt(ctx, S);
    for (const id of ['aria', 'aria', 'inert', 'inert', 'ok', 'ok', 'ignored', 'ignored']) press(document.getElementById(id)!);
    expect(signals.map((s) => (s.el as Element).id)).toEqual(['aria', 'inert']);
    d.stop();
  });
});
