// The element heatmap: presses at (rx, ry) inside the element's box, counted in a 3x3 grid,
// and one plain sentence about where they land.
export interface ElementPoint { rx: number; ry: number; signal: string }

const third = (v: number) => Math.min(2, Math.max(0, Math.floor((Number.isFinite(v) ? v : 0) * 3)));

/** Counts per cell, [row][column], rows top to bottom, columns left to right. */
export function gridCounts(points: readonly ElementPoint[]): number[][] {
  const grid = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  for (const p of points) grid[third(p.ry)][third(p.rx)]++;
  return grid;
}

const COLUMNS = ['left', 'middle', 'right'];
const ROWS = ['top', 'middle', 'bottom'];

/**
 * "72 % of presses land in the right third": the busiest column or row third, whichever
 * holds the larger share; when no third holds half of them, that they are spread out.
 */
export function placementSentence(points: readonly ElementPoint[]): string {
  const n = points.length;
  if (n === 0) return 'No presses were recorded on this element.';
  const grid = gridCounts(points);
  const columns = [0, 1, 2].map((c) => grid[0][c] + grid[1][c] + grid[2][c]);
  const rows = grid.map((row) => row[0] + row[1] + row[2]);
  const bestColumn = columns.indexOf(Math.max(...columns));
  const bestRow = rows.indexOf(Math.max(...rows));
  const byColumn = columns[bestColumn] >= rows[bestRow];
  const share = (byColumn ? columns[bestColumn] : rows[bestRow]) / n;
  const noun = n === 1 ? 'press' : 'presses';
  if (share < 0.5) return `The ${n} ${noun} are spread over the element: no third holds half of them.`;
  const where = byColumn ? `${COLUMNS[bestColumn]} third` : `${ROWS[bestRow]} third`;
  if (share === 1) return n === 1 ? `The one press landed in the ${where}.` : `All ${n} ${noun} land in the ${where}.`;
  return `${Math.round(share * 100)} % of ${noun} land in the ${where}.`;
}
