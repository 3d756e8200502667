// The page's own requests (fetch and XMLHttpRequest), for the detectors that care: a listener
// hears each request start and may return what to call if it fails (status 500 or more, a
// network error, an XHR timeout; an abort is the page's own choice, no failure). The SDK's own
// calls are not the page's. Wrapped while someone listens, put back when the last one leaves.
import { listen } from './dom.ts';

export type RequestListener = () => ((reason: string) => void) | undefined | void;

export function watchRequests(win: Window, own: (url: string) => boolean) {
  const listeners = new Set<RequestListener>();
  let restore: (() => void) | null = null;

  const start = () => {
    const fails = [...listeners].map((listener) => listener());
    return (reason: string) => fails.forEach((fail) => fail?.(reason));
  };

  const install = () => {
    const fetch = win.fetch;
    const wrapped = fetch && function (...args: Parameters<typeof win.fetch>) {
      const input = args[0] as { url?: string };
      const result = fetch.apply(win, args);
      if (!own(String(typeof input === 'object' && input.url ? input.url : input))) {
        const fail = start();
        result.then((res) => { if (res.status >= 500) fail(`HTTP ${res.status}`); }, (err) => { if (err?.name !== 'AbortError') fail('Network error'); });
      }
      return result;
    } as typeof win.fetch;
    if (wrapped) win.fetch = wrapped;
    const XHR = (win as Window & typeof globalThis).XMLHttpRequest?.prototype;
    const send = XHR?.send;
    const wrappedSend = send && function (this: XMLHttpRequest, ...args: Parameters<typeof send>) {
      const fail = start();
      listen(this, ['load'], () => { if (this.status >= 500) fail(`HTTP ${this.status}`); });
      listen(this, ['error', 'timeout'], () => fail('Network error'));
      return send.apply(this, args);
    };
    if (XHR && wrappedSend) XHR.send = wrappedSend;
    // Put back only what is still ours: a script that wrapped them after us keeps its wrapper.
    return () => {
      if (wrapped && win.fetch === wrapped) win.fetch = fetch;
      if (XHR && send && XHR.send === wrappedSend) XHR.send = send;
    };
  };

  return (listener: RequestListener) => {
    listeners.add(listener);
    restore ??= install();
    return () => {
      listeners.delete(listener);
      if (!listeners.size && restore) {
        restore();
        restore = null;
      }
    };
  };
}
