// dead_click: a click on something interactive (or that looks it) that nothing answers within
// `wait_ms` (see responses.ts: a change on or next to the element, a navigation, a download,
// a URL, focus or scroll change, a dialog). Not for form fields, modifier-clicks, new-tab or
// download links, text selection, drags, clicks of a burst (a rage or purposeful one), clicks
// followed by another click on the same element within the wait, or clicks on a form's submit
// control while dead_end_submit is on (that click is its).
import { isField, pointOf } from '../dom.ts';
import type { Click, Context, Detector, Settings } from './types.ts';

/** `burstClicks`: clicks that make a burst (0: bursts are not followed); `deadEnd`: dead_end_submit is on. */
export function deadClick(ctx: Context, s: Settings, burstClicks: number, deadEnd = false): Detector {
  const { win } = ctx;
  const pending = new Map<Click, { timer: ReturnType<typeof setTimeout>; again: boolean }>();

  return {
    click(click) {
      for (const [earlier, entry] of pending) if (earlier.el === click.el) entry.again = true;
      if (click.excluded || (!click.interactive && !click.looks) || isField(click.el) || (deadEnd && click.submits)) return;
      ctx.responses.mark(click);
      const point = pointOf(click.el, click.x, click.y, win);
      const entry = {
        again: false,
        timer: setTimeout(() => {
          pending.delete(click);
          const inBurst = burstClicks > 0 && (click.burst?.clicks.length ?? 0) >= burstClicks;
          if (!inBurst && !entry.again && !ctx.responses.responded(click, click.el, click.t + s.wait_ms)) {
            ctx.emit({ type: 'dead_click', el: click.el, confidence: click.interactive ? 1 : 0.6, ...point });
          }
        }, s.wait_ms),
      };
      pending.set(click, entry);
    },
    stop() {
      pending.forEach((entry) => clearTimeout(entry.timer));
      pending.clear();
    },
  };
}
