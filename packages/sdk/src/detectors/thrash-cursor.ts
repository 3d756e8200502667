// thrash_cursor: >= `reversals` horizontal direction reversals of the pointer, each leg >=
// `min_leg_px`, within `window_ms` from the start of the first leg, with no button pressed
// (not a drag), not over a canvas, video, frame, application region or ignored element. At
// most once per `quiet_ms` per page view. The element is the interactive element under the
// pointer at the end, else none. Confidence 0.6. Every position counts, also those a busy page
// receives merged into one event (coalesced), each at the time the browser took it.
import { interactiveOf, listen } from '../dom.ts';
import { legs } from './legs.ts';
import type { Context, Detector, Settings } from './types.ts';

export function thrashCursor(ctx: Context, s: Settings): Detector {
  const moves = legs(() => s.min_leg_px, s.window_ms);
  let quietUntil = -1e15;

  const onMove = (e: PointerEvent) => {
    const target = e.target as Element;
    if (e.buttons || !target.closest || target.closest('canvas,video,iframe,[role=application]') || ctx.ignored(target)) return moves.reset();
    const coalesced = e.getCoalescedEvents?.() ?? [];
    let reversals = 0;
    for (const move of coalesced.length ? coalesced : [e]) reversals = moves.move(move.clientX, move.timeStamp);
    if (reversals < s.reversals || e.timeStamp < quietUntil) return;
    quietUntil = e.timeStamp + s.quiet_ms;
    moves.reset();
    ctx.emit({ type: 'thrash_cursor', el: interactiveOf(target), confidence: 0.6 });
  };

  return {
    pageview() { quietUntil = -1e15; },
    stop: listen(ctx.doc, ['pointermove'], onMove),
  };
}
