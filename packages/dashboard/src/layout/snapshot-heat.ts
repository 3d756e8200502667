// The page heatmap over the page's snapshot: the snapshot drawn at the frame's width, each
// element's presses placed inside the element's own box (found by its selector in the rebuilt
// page) by (rx, ry), other presses by (vx, vy) against the snapshot's first screen, and a
// density layer binned on a coarse grid. Pure: the rebuilt page's boxes come in as numbers.
import type { Size } from './heatmap.ts';

export interface Box { x: number; y: number; width: number; height: number }
export interface Point { x: number; y: number }

const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/**
 * The scale that draws a page laid out `page.width` CSS pixels wide in `frameWidth` pixels,
 * never enlarged, and the drawn size (the whole scroll height, scaled).
 */
export function fitToWidth(page: Size, frameWidth: number): { scale: number; width: number; height: number } {
  const scale = page.width > 0 && frameWidth > 0 ? Math.min(1, frameWidth / page.width) : 1;
  return { scale, width: Math.round(page.width * scale), height: Math.round(page.height * scale) };
}

/** A press at (rx, ry), fractions of its element's box, in page pixels; outside 0..1 pinned to the edge. */
export function placeInBox(point: { rx: number; ry: number }, box: Box): Point {
  return { x: box.x + clamp01(point.rx) * box.width, y: box.y + clamp01(point.ry) * box.height };
}

/**
 * A press known only by where it landed in the visible window (vx, vy fractions): placed on
 * the snapshot's first screen, `viewport` wide and high, as the page was when first shown.
 */
export function placeInViewport(point: { vx: number; vy: number }, viewport: Size): Point {
  return { x: clamp01(point.vx) * viewport.width, y: clamp01(point.vy) * viewport.height };
}

/** A page-pixel point or box at the drawing's scale. */
export const scalePoint = (p: Point, scale: number): Point => ({ x: p.x * scale, y: p.y * scale });
export const scaleBox = (b: Box, scale: number): Box => ({ x: b.x * scale, y: b.y * scale, width: b.width * scale, height: b.height * scale });

export interface Density { cell: number; cols: number; rows: number; counts: number[]; max: number }

/** Points counted per `cell`-pixel square of a `size` area (row by row); points outside are left out. */
export function densityGrid(points: readonly Point[], size: Size, cell: number): Density {
  const cols = Math.max(1, Math.ceil(size.width / cell));
  const rows = Math.max(1, Math.ceil(size.height / cell));
  const counts = new Array<number>(cols * rows).fill(0);
  for (const p of points) {
    if (!(p.x >= 0 && p.y >= 0 && p.x <= size.width && p.y <= size.height)) continue;
    const c = Math.min(cols - 1, Math.floor(p.x / cell));
    const r = Math.min(rows - 1, Math.floor(p.y / cell));
    counts[r * cols + c]++;
  }
  return { cell, cols, rows, counts, max: Math.max(0, ...counts) };
}

/** A cell's opacity: the busiest cell strongest, one press still visible, an empty cell nothing. */
export function cellOpacity(count: number, max: number): number {
  if (count <= 0 || max <= 0) return 0;
  return 0.2 + 0.6 * Math.sqrt(count / max);
}

/** A page-heatmap point: where it landed in the window, its element, and (when known) where in the element. */
export interface HeatPoint { vx: number; vy: number; signal: string; el?: string; rx?: number; ry?: number }
export interface Placed { x: number; y: number; signal: string; el: string | null }
/** An element found in the rebuilt page by its selector, with its box in page pixels. */
export interface Found { selector: string; count: number; box: Box }

/**
 * Every press in page pixels: a found element's presses in its box, by the element heatmap's
 * (rx, ry) or the point's own; the rest on the first screen by (vx, vy).
 */
export function placeAll(points: readonly HeatPoint[], found: readonly Found[], inElement: Record<string, { rx: number; ry: number; signal: string }[]>, viewport: { width: number; height: number }): Placed[] {
  const boxes = new Map(found.map((f) => [f.selector, f.box]));
  const placed: Placed[] = [];
  for (const [selector, box] of boxes) {
    const own = points.filter((p) => p.el === selector);
    const exact = own.every((p) => p.rx !== undefined && p.ry !== undefined) ? own as { rx: number; ry: number; signal: string }[] : inElement[selector] ?? [];
    for (const p of exact) placed.push({ ...placeInBox(p, box), signal: p.signal, el: selector });
  }
  for (const p of points) if (!p.el || !boxes.has(p.el)) placed.push({ ...placeInViewport(p, viewport), signal: p.signal, el: null });
  return placed;
}

