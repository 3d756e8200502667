import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorEncounter } from '../src/detectors/error-encounter.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { html, makeContext } from './helpers.ts';

const S = DEFAULT_SIGNALS.error_encounter;
const flushMicrotasks = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function act(id: string) {
  document.getElementById(id)!.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, button: 0 }));
}
function uncaught(message: string) {
  window.dispatchEvent(new ErrorEvent('error', { error: new TypeError(message), message }));
}

describe('error_encounter', () => {
  let realFetch: typeof fetch;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    html('<button id="pay">Pay</button><div id="msg"></div>');
    realFetch = window.fetch;
  });
  afterEach(() => {
    window.fetch = realFetch;
    vi.useRealTimers();
  });

  it('fires for an uncaught error within 5000 ms of a user action, with a scrubbed message', () => {
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    act('pay');
    vi.advanceTimersByTime(4000);
    uncaught('no card for jane@example.com');
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ type: 'error_encounter', el: document.getElementById('pay'), label: 'TypeError: no card for [redacted]' });
    d.stop();
  });

  it('does not fire for errors without a recent action', () => {
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    uncaught('boot failure');
    act('pay');
    vi.advanceTimersByTime(5001);
    uncaught('late failure');
    expect(signals).toHaveLength(0);
    d.stop();
  });

  it('one signal per action, each message once per session', () => {
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    act('pay');
    uncaught('first');
    uncaught('second');
    act('pay');
    uncaught('first');
    act('pay');
    window.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: new RangeError('bad range') }));
    expect(signals.map((s) => s.label)).toEqual(['TypeError: first', 'RangeError: bad range']);
    d.stop();
  });

  it('reports a visible error message (role=alert) and a failed request of the page, never its own', async () => {
    const stub = (async (input: RequestInfo | URL) => new Response('', { status: String(input).includes('fail') ? 503 : 200 })) as typeof fetch;
    window.fetch = stub;
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    act('pay');
    document.getElementById('msg')!.innerHTML = '<p role="alert">Payment declined</p>';
    await flushMicrotasks();
    act('pay');
    await window.fetch('https://mallard.example/v1/ingest?fail');
    await window.fetch('/api/ok');
    await flushMicrotasks();
    expect(signals).toHaveLength(1);
    await window.fetch('/api/fail');
    await flushMicrotasks();
    expect(signals.map((s) => s.label)).toEqual(['Message: Payment declined', 'HTTP 503']);
    d.stop();
    expect(window.fetch).toBe(stub); // stop() puts back what was there before
  });

  it('ignores aborted requests (fetch and XHR), still reports network errors', async () => {
    window.fetch = (async (input: RequestInfo | URL) => {
      if (String(input).includes('abort')) throw new DOMException('The user aborted a request.', 'AbortError');
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    const realSend = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function () { /* the test dispatches the outcome */ };
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    try {
      act('pay');
      await window.fetch('/api/abort').catch(() => undefined);
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/api/search');
      xhr.send();
      xhr.dispatchEvent(new ProgressEvent('abort'));
      xhr.dispatchEvent(new ProgressEvent('loadend'));
      await flushMicrotasks();
      expect(signals).toHaveLength(0);
      await window.fetch('/api/save').catch(() => undefined);
      await flushMicrotasks();
      expect(signals.map((s) => s.label)).toEqual(['Network error']);
      ctx.session.set('errors', []); // each message is reported once per session: start afresh
      act('pay');
      const failing = new XMLHttpRequest();
      failing.open('GET', '/api/other');
      failing.send();
      failing.dispatchEvent(new ProgressEvent('error'));
      failing.dispatchEvent(new ProgressEvent('loadend'));
      expect(signals.map((s) => s.label)).toEqual(['Network error', 'Network error']);
    } finally {
      d.stop();
      XMLHttpRequest.prototype.send = realSend;
    }
  });

  it('blames a failed request only on the action it started within 1000 ms of, however late it fails', async () => {
    let fail!: () => void;
    window.fetch = (() => new Promise<Response>((resolve) => { fail = () => resolve(new Response('', { status: 502 })); })) as typeof fetch;
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, S);
    const poll = window.fetch('/api/poll'); // a background request started before any action
    act('pay');
    fail();
    await poll;
    await flushMicrotasks();
    expect(signals).toHaveLength(0);
    vi.advanceTimersByTime(1001);
    const late = window.fetch('/api/late'); // started 1001 ms after the action
    fail();
    await late;
    act('pay');
    vi.advanceTimersByTime(800);
    const mine = window.fetch('/api/save');
    vi.advanceTimersByTime(9000);
    fail();
    await mine;
    await flushMicrotasks();
    expect(signals.map((s) => [s.label, s.el])).toEqual([['HTTP 502', document.getElementById('pay')]]);
    d.stop();
  });

  it('stops at max_per_session', () => {
    const { ctx, signals } = makeContext();
    const d = errorEncounter(ctx, { ...S, max_per_session: 2 });
    for (let i = 0; i < 4; i++) {
      act('pay');
      uncaught(`error ${i}`);
    }
    expect(signals).toHaveLength(2);
    d.stop();
  });
});
