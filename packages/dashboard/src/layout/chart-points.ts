// What a score chart's tooltip and table view show: each point with the deploys and
// annotations nearest to it, and where the tooltip sits so it stays inside the plot.

/** Something drawn on a chart at a time (ms since the epoch). */
export interface TimedMark { atMs: number }

/**
 * Each mark goes to the point nearest to it in time, so the tooltip of that point and its row in
 * the table view name it. `xs` are the points' times in ms, ascending. A mark before the first or
 * after the last point goes to that end point; a mark halfway between two goes to the later one
 * (a deploy between two cycles first shows in the cycle after it). Marks further than `maxGapMs`
 * from every point are left out.
 */
export function marksByPoint<M extends TimedMark>(xs: readonly number[], marks: readonly M[], maxGapMs = Infinity): M[][] {
  const out: M[][] = xs.map(() => []);
  if (xs.length === 0) return out;
  for (const mark of marks) {
    // Binary search for the first point at or after the mark.
    let lo = 0, hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid] < mark.atMs) lo = mid + 1; else hi = mid;
    }
    const before = lo - 1;
    const idx = lo >= xs.length ? xs.length - 1
      : before < 0 ? lo
      : mark.atMs - xs[before] < xs[lo] - mark.atMs ? before : lo;
    if (Math.abs(xs[idx] - mark.atMs) <= maxGapMs) out[idx].push(mark);
  }
  return out;
}

/**
 * The tooltip's top-left corner in the plot's pixels: to the right of and below the cursor, flipped
 * to the left or above when it would leave the plot, and never past its top-left corner.
 */
export function tooltipPosition(cursor: { left: number; top: number }, tip: { width: number; height: number }, plot: { width: number; height: number }, gap = 12): { left: number; top: number } {
  let left = cursor.left + gap;
  if (left + tip.width > plot.width) left = cursor.left - gap - tip.width;
  let top = cursor.top + gap;
  if (top + tip.height > plot.height) top = cursor.top - gap - tip.height;
  return { left: Math.max(0, Math.round(left)), top: Math.max(0, Math.round(top)) };
}
