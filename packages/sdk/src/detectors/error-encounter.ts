// error_encounter: within `after_action_ms` of a user action (press, key, submit), an uncaught
// error, an unhandled rejection, a request the page made that failed (status >= 500 or a
// network error; an aborted request is none), or an error message appearing (role=alert).
// One signal per action; only the error's class and a scrubbed short message; each message
// once per session, at most `max_per_session` per session. The signal's element is the one
// the user acted on.
import { cleanText } from '../redact.ts';
import { listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function errorEncounter(ctx: Context, s: Settings, ownEndpoint: string): Detector {
  const { win, doc } = ctx;
  let action: { t: number; el: Element | null; reported: boolean } | null = null;

  const report = (message: string) => {
    if (!action || action.reported || ctx.now() - action.t > s.after_action_ms) return;
    const seen = ctx.session.get<string[]>('errors') ?? [];
    const text = cleanText(message);
    if (seen.includes(text) || seen.length >= s.max_per_session) return;
    if (action.el && ctx.ignored(action.el)) return;
    action.reported = true;
    ctx.session.set('errors', [...seen, text]);
    ctx.emit({ type: 'error_encounter', el: action.el, label: text, confidence: 1 });
  };

  const onAction = (e: Event) => {
    const target = e.target instanceof Element ? e.target : null;
    const el = (e as SubmitEvent).submitter ?? target?.closest('button,a,input,select,textarea,[role=button],form') ?? target;
    const t = ctx.now();
    // The submit that follows a press is the same action, not a second one.
    if (e.type === 'submit' && action && t - action.t < 1000) action.el = el;
    else action = { t, el, reported: false };
  };
  const onError = (e: ErrorEvent) => {
    const error = e.error as { name?: string; message?: string } | undefined;
    report(`${error?.name ?? 'Error'}: ${error?.message ?? e.message ?? ''}`);
  };
  const onRejection = (e: PromiseRejectionEvent) => {
    const reason = e.reason as { name?: string; message?: string } | undefined;
    report(reason && typeof reason === 'object' ? `${reason.name ?? 'Error'}: ${reason.message ?? ''}` : `Unhandled rejection: ${String(reason)}`);
  };
  const alerts = new MutationObserver((records) => {
    for (const r of records) {
      const added = [...r.addedNodes].find((n): n is Element => n.nodeType === 1);
      const alert = (r.target.nodeType === 1 ? r.target as Element : r.target.parentElement)?.closest('[role=alert]')
        ?? (added?.matches('[role=alert]') ? added : added?.querySelector('[role=alert]'));
      if (alert?.textContent?.trim()) report(`Message: ${alert.textContent}`);
    }
  });
  alerts.observe(doc.documentElement, { subtree: true, childList: true, characterData: true });

  // Requests the page makes are watched through fetch and XHR; the SDK's own calls (ingest and
  // its config, on the same origin as the page's API when self-hosted there) are not.
  const own = (url: string) => url.startsWith(`${ownEndpoint}/v1/ingest`) || url.startsWith(`${ownEndpoint}/v1/sdk-config`);
  const fetch = win.fetch;
  const wrapped = fetch && function (...args: Parameters<typeof win.fetch>) {
    const input = args[0] as { url?: string };
    const result = fetch.apply(win, args);
    if (!own(String(typeof input === 'object' && input.url ? input.url : input))) {
      // An aborted request is the page's own choice (a cancelled search, a navigation): no error.
      result.then((res) => { if (res.status >= 500) report(`HTTP ${res.status}`); }, (err) => { if (err?.name !== 'AbortError') report('Network error'); });
    }
    return result;
  } as typeof win.fetch;
  if (wrapped) win.fetch = wrapped;
  const XHR = (win as Window & typeof globalThis).XMLHttpRequest?.prototype;
  const send = XHR?.send;
  const wrappedSend = send && function (this: XMLHttpRequest, ...args: Parameters<typeof send>) {
    // 'error' is a network failure (or a refused CORS request); an abort is no error.
    listen(this, ['load'], () => { if (this.status >= 500) report(`HTTP ${this.status}`); });
    listen(this, ['error', 'timeout'], () => report('Network error'));
    return send.apply(this, args);
  };
  if (XHR && wrappedSend) XHR.send = wrappedSend;

  const unlisten = [listen(doc, ['pointerdown', 'keydown', 'submit'], onAction), listen(win, ['error'], onError, false), listen(win, ['unhandledrejection'], onRejection, false)];
  return {
    stop() {
      alerts.disconnect();
      // Put back only what is still ours: a script that wrapped them after us keeps its wrapper.
      if (wrapped && win.fetch === wrapped) win.fetch = fetch;
      if (XHR && send && XHR.send === wrappedSend) XHR.send = send;
      unlisten.forEach((off) => off());
    },
  };
}
