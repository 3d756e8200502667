// rage_click: >= `clicks` clicks on the same element or within `radius_px` of the first click,
// first to last <= `window_ms`. Decided once the burst is over and its last click had
// `purposeful_ms` to be answered: a burst whose every click was answered on or next to its
// element (a stepper, a carousel, a counter) is purposeful clicking and no signal. The heatmap
// point is the burst's centroid. Confidence 1.0 up to half the window, falling linearly to 0.4
// at the full window; each click beyond the minimum adds 0.1. Excluded clicks (modifier keys,
// new-tab or download links, selecting text, editable text, drags) do not count.
// A burst that layout_shift_rage claims (`shifted`) is reported as that instead.
import { pointOf, type Point } from '../dom.ts';
import type { Click, Context, Detector, Settings } from './types.ts';

interface Burst { clicks: Click[]; points: Point[]; timer: ReturnType<typeof setTimeout> }

export function rageConfidence(spanMs: number, clicks: number, s: Settings): number {
  const half = s.window_ms / 2;
  const base = spanMs <= half ? 1 : 1 - 0.6 * Math.min(1, (spanMs - half) / half);
  return Math.min(1, Math.round((base + 0.1 * Math.max(0, clicks - s.clicks)) * 100) / 100);
}

/**
 * `rage`: whether rage_click itself is on (bursts are also followed for layout_shift_rage);
 * `shifted`: whether a layout shift just before the burst moved its element.
 */
export function rageClick(ctx: Context, s: Settings, rage = true, shifted?: (el: Element, t: number) => boolean): Detector {
  let burst: Burst | null = null;
  /** Closed bursts waiting for their last click's answer. */
  const waiting = new Map<Burst, ReturnType<typeof setTimeout>>();

  const decide = ({ clicks, points }: Burst) => {
    const purposeful = clicks.every((c) => ctx.responses.responded(c, c.el, c.t + s.purposeful_ms));
    if (purposeful) return;
    const first = clicks[0];
    const type = shifted?.(first.el, first.t) ? 'layout_shift_rage' : rage ? 'rage_click' : '';
    if (!type) return;
    const mean = (key: 'hx' | 'hy' | 'vx' | 'vy') => Math.round(points.reduce((sum, p) => sum + (p[key] ?? 0), 0) / points.length);
    const span = clicks[clicks.length - 1].t - first.t;
    ctx.emit({
      type, el: first.el, confidence: type === 'rage_click' ? rageConfidence(span, clicks.length, s) : 1,
      ...(points[0].hx === undefined ? {} : { hx: mean('hx'), hy: mean('hy') }), vx: mean('vx'), vy: mean('vy'),
      count: clicks.length, duration_ms: span,
    });
  };

  const close = () => {
    const closed = burst;
    burst = null;
    if (!closed) return;
    clearTimeout(closed.timer);
    if (closed.clicks.length < s.clicks) return;
    const wait = closed.clicks[closed.clicks.length - 1].t + s.purposeful_ms - ctx.now();
    if (wait <= 0) return decide(closed);
    waiting.set(closed, setTimeout(() => {
      waiting.delete(closed);
      decide(closed);
    }, wait));
  };

  return {
    click(click) {
      if (click.excluded) return;
      ctx.responses.mark(click);
      const first = burst?.clicks[0];
      const joins = first && click.t - first.t <= s.window_ms
        && (click.el === first.el || Math.hypot(click.x - first.x, click.y - first.y) <= s.radius_px);
      if (!joins) {
        close();
        burst = { clicks: [], points: [], timer: setTimeout(close, s.window_ms) };
      }
      // Positions are taken now, relative to the burst's element, before anything scrolls.
      burst!.points.push(pointOf(burst!.clicks[0]?.el ?? click.el, click.x, click.y, ctx.win));
      burst!.clicks.push(click);
      click.burst = burst!;
    },
    // The page is being left: what is still open or waiting is decided now.
    leave() {
      close();
      waiting.forEach((timer, closed) => {
        clearTimeout(timer);
        decide(closed);
      });
      waiting.clear();
    },
    stop() {
      if (burst) clearTimeout(burst.timer);
      burst = null;
      waiting.forEach(clearTimeout);
    },
  };
}
