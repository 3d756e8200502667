import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadEndSubmit } from '../src/detectors/dead-end-submit.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { click, html, makeContext } from './helpers.ts';

const S = DEFAULT_SIGNALS.dead_end_submit;
const $ = (id: string) => document.getElementById(id)!;
const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));
const submitClick = () => click($('send'), 5, 5, { submits: true });

describe('dead_end_submit', () => {
  let realFetch: typeof fetch;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html('<main><form id="f"><input id="msg"><button id="send">Send</button><p id="out"></p></form><form id="quiet" data-mallard-ignore><button id="q">Go</button></form></main>');
    realFetch = window.fetch;
    window.fetch = (async () => new Response('{}')) as typeof fetch;
  });
  afterEach(() => {
    window.fetch = realFetch;
    vi.useRealTimers();
  });

  it('fires when a submit click gets no request, navigation or change within 3000 ms, and not before', () => {
    const { ctx, signals } = makeContext();
    const d = deadEndSubmit(ctx, S, 3);
    d.click!(submitClick());
    vi.advanceTimersByTime(2999);
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(signals).toEqual([{ type: 'dead_end_submit', el: $('send'), confidence: 1 }]);
    d.stop();
  });

  it('a request, a change in the form or a navigation starting answers it', async () => {
    const { ctx, signals } = makeContext();
    const d = deadEndSubmit(ctx, S, 3);
    d.click!(submitClick());
    await window.fetch('/api/send');
    vi.advanceTimersByTime(3000);
    d.click!(submitClick());
    $('out').textContent = 'Sent';
    await flushMicrotasks();
    vi.advanceTimersByTime(3000);
    d.click!(submitClick());
    window.dispatchEvent(new Event('beforeunload'));
    vi.advanceTimersByTime(3000);
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('a submit without a click (Enter in a field) is watched too, on its submitter or form', () => {
    const { ctx, signals } = makeContext();
    const d = deadEndSubmit(ctx, S, 3);
    $('f').dispatchEvent(new Event('submit', { bubbles: true }));
    vi.advanceTimersByTime(3000);
    expect(signals.map((s) => s.el)).toEqual([$('f')]);
    d.stop();
  });

  it('the submit that follows a click is that click\'s; a repeated click leaves only the last; bursts give none', () => {
    const { ctx, signals } = makeContext();
    const d = deadEndSubmit(ctx, S, 3);
    d.click!(submitClick());
    $('f').dispatchEvent(new Event('submit', { bubbles: true }));
    vi.advanceTimersByTime(1000);
    d.click!(submitClick());
    vi.advanceTimersByTime(3000);
    expect(signals).toHaveLength(1);
    const burst = { clicks: [] as ReturnType<typeof submitClick>[] };
    for (let i = 0; i < 3; i++) {
      const c = submitClick();
      burst.clicks.push(c);
      c.burst = burst;
      d.click!(c);
    }
    vi.advanceTimersByTime(3000);
    expect(signals).toHaveLength(1);
    d.stop();
  });

  it('respects ignore rules and the configured wait', () => {
    const { ctx, signals } = makeContext();
    const d = deadEndSubmit(ctx, { wait_ms: 5000 }, 3);
    d.click!(click($('q'), 5, 5, { submits: true }));
    d.click!(submitClick());
    vi.advanceTimersByTime(4999);
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(signals.map((s) => s.el)).toEqual([$('send')]);
    d.stop();
  });
});
