// A heatmap in words: how many points of each signal, and where they cluster. The area is cut
// into a 3 x 3 grid (left/centre/right by top/middle/bottom); the summary names the busiest
// cells with their share, and for a page heatmap the elements clicked most.
import { countsLine, plural } from './text.ts';

const COLUMNS = ['left', 'centre', 'right'] as const;
const ROWS = ['top', 'middle', 'bottom'] as const;

interface Point { x: number; y: number; signal: string; el?: string }

const third = (v: number) => Math.min(2, Math.max(0, Math.floor(v * 3)));
const percent = (n: number, total: number) => Math.round((n / total) * 100);

export function cellName(x: number, y: number): string {
  const row = ROWS[third(y)];
  const column = COLUMNS[third(x)];
  return row === 'middle' && column === 'centre' ? 'centre' : `${row} ${column}`;
}

export function summarizePoints(points: readonly Point[], area: string): string[] {
  if (points.length === 0) return [`No friction points in the ${area} for this window.`];
  const bySignal: Record<string, number> = {};
  const byCell = new Map<string, number>();
  const byElement = new Map<string, number>();
  for (const p of points) {
    bySignal[p.signal] = (bySignal[p.signal] ?? 0) + 1;
    const cell = cellName(p.x, p.y);
    byCell.set(cell, (byCell.get(cell) ?? 0) + 1);
    if (p.el) byElement.set(p.el, (byElement.get(p.el) ?? 0) + 1);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n);
  const cx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const cy = points.reduce((s, p) => s + p.y, 0) / points.length;
  const out = [
    `${plural(points.length, 'point')}: ${countsLine(bySignal)}.`,
    `Where they cluster in the ${area}: ${top(byCell, 3).map(([cell, n]) => `${cell} ${percent(n, points.length)}%`).join(', ')} (centre of mass x ${cx.toFixed(2)}, y ${cy.toFixed(2)}; 0,0 is the top left).`,
  ];
  const elements = top(byElement, 3);
  if (elements.length > 0) out.push(`Elements clicked most: ${elements.map(([el, n]) => `${el} (${n})`).join(', ')}.`);
  return out;
}
