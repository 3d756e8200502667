// Element boxes on a page heatmap, derived from the points alone: each point that names its
// element (`el`) belongs to that element's box. The box spans where its presses landed
// (the 10th to 90th percentile when there are enough points, so one stray click does not
// stretch it), padded and never smaller than a tap target.
export interface HeatPoint { vx: number; vy: number; signal: string; el?: string }

export interface ElementBox {
  selector: string;
  count: number;
  signals: Record<string, number>;
  /** Fractions of the viewport, 0..1. */
  x0: number; y0: number; x1: number; y1: number;
}

export interface BoxOptions {
  /** Fewest points that make a box (default 2). */
  minPoints?: number;
  /** Most boxes drawn, the busiest first (default 8). */
  max?: number;
  /** Padding around the points, as a fraction of the viewport (default 0.01). */
  pad?: number;
  /** Smallest box side, as a fraction of the viewport (default 0.04). */
  minSide?: number;
}

function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** [start, end] of a box side: a trimmed range of the values, padded, at least `minSide` wide, inside 0..1. */
export function extent(values: number[], pad: number, minSide: number): [number, number] {
  const sorted = values.map((v) => Math.min(1, Math.max(0, v))).sort((a, b) => a - b);
  const trim = sorted.length >= 10 ? 0.1 : 0;
  let lo = quantile(sorted, trim) - pad;
  let hi = quantile(sorted, 1 - trim) + pad;
  if (hi - lo < minSide) {
    const mid = (lo + hi) / 2;
    lo = mid - minSide / 2;
    hi = mid + minSide / 2;
  }
  if (lo < 0) { hi -= lo; lo = 0; }
  if (hi > 1) { lo -= hi - 1; hi = 1; }
  return [Math.max(0, lo), Math.min(1, hi)];
}

export function deriveBoxes(points: readonly HeatPoint[], options: BoxOptions = {}): ElementBox[] {
  const { minPoints = 2, max = 8, pad = 0.01, minSide = 0.04 } = options;
  const groups = new Map<string, HeatPoint[]>();
  for (const p of points) {
    if (!p.el) continue;
    let group = groups.get(p.el);
    if (!group) groups.set(p.el, group = []);
    group.push(p);
  }
  const boxes: ElementBox[] = [];
  for (const [selector, group] of groups) {
    if (group.length < minPoints) continue;
    const [x0, x1] = extent(group.map((p) => p.vx), pad, minSide);
    const [y0, y1] = extent(group.map((p) => p.vy), pad, minSide);
    const signals: Record<string, number> = {};
    for (const p of group) signals[p.signal] = (signals[p.signal] ?? 0) + 1;
    boxes.push({ selector, count: group.length, signals, x0, y0, x1, y1 });
  }
  return boxes.sort((a, b) => b.count - a.count || a.selector.localeCompare(b.selector)).slice(0, max);
}

/**
 * The order to draw boxes in: the largest first, so wherever boxes overlap the smallest one
 * containing a spot is on top and receives the press (a wide paragraph box must not cover
 * the button inside it). Ties keep the busiest-first order.
 */
export function stackingOrder(boxes: readonly ElementBox[]): ElementBox[] {
  const area = (b: ElementBox) => (b.x1 - b.x0) * (b.y1 - b.y0);
  const larger = (p: ElementBox, q: ElementBox) => {
    const d = area(q) - area(p);
    return Math.abs(d) > 1e-9 ? d : 0; // equal up to rounding: keep the busiest first
  };
  return boxes.map((b, i) => ({ b, i })).sort((p, q) => larger(p.b, q.b) || p.i - q.i).map(({ b }) => b);
}
