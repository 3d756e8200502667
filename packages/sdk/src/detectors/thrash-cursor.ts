// thrash_cursor: >= `reversals` horizontal direction reversals of the pointer, each leg >=
// `min_leg_px`, within `window_ms` from the start of the first leg, with no button pressed
// (not a drag), not over a canvas, video, frame, application region or ignored element. At
// most once per `quiet_ms` per page view. The element is the interactive element under the
// pointer at the end, else none. Confidence 0.6.
import { interactiveOf, listen } from '../dom.ts';
import { legs } from './legs.ts';
import type { Context, Detector, Settings } from './types.ts';

export function thrashCursor(ctx: Context, s: Settings): Detector {
  const moves = legs(() => s.min_leg_px, s.window_ms);
  let quietUntil = 0;

  const onMove = (e: PointerEvent) => {
    const target = e.target as Element;
    if (e.buttons || !target.closest || target.closest('canvas,video,iframe,[role=application]') || ctx.ignored(target)) return moves.reset();
    const t = ctx.now();
    if (moves.move(e.clientX, t) < s.reversals || t < quietUntil) return;
    quietUntil = t + s.quiet_ms;
    moves.reset();
    ctx.emit({ type: 'thrash_cursor', el: interactiveOf(target), confidence: 0.6 });
  };

  return {
    pageview() { quietUntil = 0; },
    stop: listen(ctx.doc, ['pointermove'], onMove),
  };
}
