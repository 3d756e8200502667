// error_encounter: within `after_action_ms` of a user action (press, key, submit), an uncaught
// error, an unhandled rejection or an error message appearing (role=alert); or a request that
// failed (status >= 500 or a network error; an aborted request is none) which the page started
// within `request_ms` of the action: a background request started before it, or long after,
// is not the user's. One signal per action; only the error's class and a scrubbed short
// message; each message once per session, at most `max_per_session` per session. The
// signal's element is the one the user acted on.
import { cleanText } from '../redact.ts';
import { listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

interface Action { t: number; el: Element | null; reported: boolean }

export function errorEncounter(ctx: Context, s: Settings): Detector {
  const { win, doc } = ctx;
  let action: Action | null = null;

  /** `late`: a failed request, which belongs to its action however long it took. */
  const report = (message: string, a = action, late = false) => {
    if (!a || a.reported || (!late && ctx.now() - a.t > s.after_action_ms)) return;
    const seen = ctx.session.get<string[]>('errors') ?? [];
    const text = cleanText(message);
    if (seen.includes(text) || seen.length >= s.max_per_session) return;
    if (a.el && ctx.ignored(a.el)) return;
    a.reported = true;
    ctx.session.set('errors', [...seen, text]);
    ctx.emit({ type: 'error_encounter', el: a.el, label: text, confidence: 1 });
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

  const unlisten = [
    listen(doc, ['pointerdown', 'keydown', 'submit'], onAction), listen(win, ['error'], onError, false), listen(win, ['unhandledrejection'], onRejection, false),
    ctx.requests(() => {
      const a = action;
      if (a && ctx.now() - a.t <= s.request_ms) return (reason) => report(reason, a, true);
    }),
  ];
  return {
    stop() {
      alerts.disconnect();
      unlisten.forEach((off) => off());
    },
  };
}
