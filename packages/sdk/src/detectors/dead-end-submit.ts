// dead_end_submit: a form submit (a click on its submit control, Enter in its field, any other
// submit) that nothing answers within `wait_ms`: no request, no navigation, no change on or
// next to the form or control, no focus change, no dialog, no validation bubble (see
// responses.ts). Click-based: it replaces the dead_click of that click; the clicks of a burst
// and a click followed by another on the same control within the wait give none. Confidence 1.
import { listen } from '../dom.ts';
import type { Click, Context, Detector, Settings } from './types.ts';

export function deadEndSubmit(ctx: Context, s: Settings, burstClicks: number): Detector {
  let last: { t: number; form: HTMLFormElement | null } | null = null;
  /** Submits waiting for an answer, each with what cancels its wait. */
  const pending = new Map<object, () => void>();
  const again = new WeakSet<object>();

  const watch = (key: object, el: Element, click?: Click) => {
    const t = ctx.now();
    ctx.responses.mark(key);
    let requested = false;
    const unlisten = ctx.requests(() => { requested = true; });
    const timer = setTimeout(() => {
      pending.delete(key);
      unlisten();
      const inBurst = burstClicks > 0 && (click?.burst?.clicks.length ?? 0) >= burstClicks;
      if (!requested && !inBurst && !again.has(key) && !ctx.ignored(el) && !ctx.responses.responded(key, el, t + s.wait_ms)) {
        ctx.emit({ type: 'dead_end_submit', el, confidence: 1 });
      }
    }, s.wait_ms);
    pending.set(key, () => {
      clearTimeout(timer);
      unlisten();
    });
  };

  const onSubmit = (e: Event) => {
    const form = e.target as HTMLFormElement;
    // The submit that follows a click on its control is that click's.
    if (last?.form === form && ctx.now() - last.t < 1000) return;
    watch(e, (e as SubmitEvent).submitter ?? form);
  };
  const unlisten = listen(ctx.doc, ['submit'], onSubmit);

  return {
    click(click) {
      for (const key of pending.keys()) if ((key as Click).el === click.el) again.add(key);
      if (!click.submits || click.excluded) return;
      last = { t: click.t, form: (click.el as HTMLButtonElement).form };
      watch(click, click.el, click);
    },
    stop() {
      unlisten();
      pending.forEach((cancel) => cancel());
      pending.clear();
    },
  };
}
