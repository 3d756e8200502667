// dead_click: a click on something interactive (or that looks it) followed within `wait_ms`
// by no DOM mutation, no URL change, no focus change, no scroll and no dialog. Not for form
// fields, modifier-clicks, new-tab or download links, text selection, clicks that belong to a
// rage burst, or clicks followed by another click on the same element within the wait.
import { isField, listen, pointOf } from '../dom.ts';
import type { Click, Context, Detector, Settings } from './types.ts';

export function deadClick(ctx: Context, s: Settings, rageClicks: number): Detector {
  const { win, doc } = ctx;
  let changes = 0;
  const bump = () => { changes++; };
  const observer = new MutationObserver(bump);
  observer.observe(doc.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  // A native dialog (alert, confirm) takes the focus from the window: blur counts as a response;
  // so does a checkbox or radio changing through its label (no attribute changes for that).
  const unlisten = listen(win, ['scroll', 'focusin', 'blur', 'popstate', 'hashchange', 'pagehide', 'input', 'change'], bump);
  const pending = new Map<Click, { timer: ReturnType<typeof setTimeout>; again: boolean }>();

  return {
    click(click) {
      for (const [earlier, entry] of pending) if (earlier.el === click.el) entry.again = true;
      if (click.excluded || (!click.interactive && !click.looks) || isField(click.el)) return;
      const before = { changes, url: win.location.href, focus: doc.activeElement };
      const point = pointOf(click.el, click.x, click.y, win);
      const entry = {
        again: false,
        timer: setTimeout(() => {
          pending.delete(click);
          const responded = changes !== before.changes || win.location.href !== before.url || doc.activeElement !== before.focus;
          const inRage = rageClicks > 0 && (click.burst?.clicks.length ?? 0) >= rageClicks;
          if (!responded && !inRage && !entry.again) {
            ctx.emit({ type: 'dead_click', el: click.el, confidence: click.interactive ? 1 : 0.6, ...point });
          }
        }, s.wait_ms),
      };
      pending.set(click, entry);
    },
    stop() {
      observer.disconnect();
      unlisten();
      pending.forEach((entry) => clearTimeout(entry.timer));
      pending.clear();
    },
  };
}
