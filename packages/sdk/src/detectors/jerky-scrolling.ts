// jerky_scrolling: >= `reversals` reversals of the page's scroll direction, each leg >=
// `min_leg_viewport` of the viewport's height, within `window_ms` from the start of the first
// leg. At most once per `quiet_ms` per page view. No element. Confidence 0.7.
import { listen } from '../dom.ts';
import { legs } from './legs.ts';
import type { Context, Detector, Settings } from './types.ts';

export function jerkyScrolling(ctx: Context, s: Settings): Detector {
  const { win } = ctx;
  const scrolls = legs(() => s.min_leg_viewport * win.innerHeight, s.window_ms);
  let quietUntil = 0;
  scrolls.reset(win.scrollY); // the first leg starts where the page is now

  const onScroll = () => {
    const t = ctx.now();
    if (scrolls.move(win.scrollY, t) < s.reversals || t < quietUntil) return;
    quietUntil = t + s.quiet_ms;
    scrolls.reset(win.scrollY);
    ctx.emit({ type: 'jerky_scrolling', confidence: 0.7 });
  };

  return {
    pageview() { quietUntil = 0; },
    // Not captured: only the page's own scrolling reaches the window.
    stop: listen(win, ['scroll'], onScroll, false),
  };
}
