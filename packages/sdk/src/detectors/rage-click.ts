// rage_click: >= `clicks` clicks on the same element or within `radius_px` of the first click,
// first to last <= `window_ms`. Emitted once per burst when it closes; the heatmap point is
// the burst's centroid. Confidence 1.0 up to half the window, falling linearly to 0.4 at the
// full window; each click beyond the minimum adds 0.1. Excluded clicks (modifier keys, new-tab
// or download links, selecting text, editable text) do not count.
import { pointOf, type Point } from '../dom.ts';
import type { Click, Context, Detector, Settings } from './types.ts';

interface Burst { clicks: Click[]; points: Point[]; timer: ReturnType<typeof setTimeout> }

export function rageConfidence(spanMs: number, clicks: number, s: Settings): number {
  const half = s.window_ms / 2;
  const base = spanMs <= half ? 1 : 1 - 0.6 * Math.min(1, (spanMs - half) / half);
  return Math.min(1, Math.round((base + 0.1 * Math.max(0, clicks - s.clicks)) * 100) / 100);
}

export function rageClick(ctx: Context, s: Settings): Detector {
  let burst: Burst | null = null;

  const close = () => {
    if (!burst) return;
    const { clicks, points, timer } = burst;
    burst = null;
    clearTimeout(timer);
    if (clicks.length < s.clicks) return;
    const first = clicks[0];
    const mean = (key: 'hx' | 'hy' | 'vx' | 'vy') => Math.round(points.reduce((sum, p) => sum + (p[key] ?? 0), 0) / points.length);
    const span = clicks[clicks.length - 1].t - first.t;
    ctx.emit({
      type: 'rage_click', el: first.el, confidence: rageConfidence(span, clicks.length, s),
      ...(points[0].hx === undefined ? {} : { hx: mean('hx'), hy: mean('hy') }), vx: mean('vx'), vy: mean('vy'),
      count: clicks.length, duration_ms: span,
    });
  };

  return {
    click(click) {
      if (click.excluded) return;
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
    leave: close,
    stop() {
      if (burst) clearTimeout(burst.timer);
      burst = null;
    },
  };
}
