// The score chart's tooltip and table view: marks given to their nearest point, the tooltip kept inside the plot.
import { describe, expect, it } from 'vitest';
import { marksByPoint, tooltipPosition } from '../src/layout/chart-points.ts';

const H = 3_600_000;
const mark = (hours: number, name: string) => ({ atMs: hours * H, name });
const names = (groups: { name: string }[][]) => groups.map((g) => g.map((m) => m.name));

describe('marks by point', () => {
  const xs = [0, 1, 2, 3].map((h) => h * H);

  it('gives each mark to the nearest point in time', () => {
    expect(names(marksByPoint(xs, [mark(0.2, 'a'), mark(1.9, 'b'), mark(2.1, 'c'), mark(2.0, 'd')]))).toEqual([['a'], [], ['b', 'c', 'd'], []]);
  });

  it('gives a mark halfway between two points to the later one', () => {
    expect(names(marksByPoint(xs, [mark(1.5, 'half')]))).toEqual([[], [], ['half'], []]);
  });

  it('gives marks before the first point or after the last to that end', () => {
    expect(names(marksByPoint(xs, [mark(-5, 'early'), mark(9, 'late')]))).toEqual([['early'], [], [], ['late']]);
  });

  it('leaves out marks further than the gap from every point', () => {
    expect(names(marksByPoint(xs, [mark(-5, 'early'), mark(3.4, 'close')], H / 2))).toEqual([[], [], [], ['close']]);
  });

  it('has nothing to give without points', () => {
    expect(marksByPoint([], [mark(1, 'a')])).toEqual([]);
  });
});

describe('tooltip position', () => {
  const plot = { width: 400, height: 200 };
  const tip = { width: 120, height: 60 };

  it('sits right of and below the cursor when there is room', () => {
    expect(tooltipPosition({ left: 100, top: 50 }, tip, plot)).toEqual({ left: 112, top: 62 });
  });

  it('flips left near the right edge and up near the bottom', () => {
    expect(tooltipPosition({ left: 350, top: 180 }, tip, plot)).toEqual({ left: 218, top: 108 });
  });

  it('never leaves the top-left corner when the plot is smaller than the tooltip', () => {
    expect(tooltipPosition({ left: 50, top: 20 }, tip, { width: 150, height: 70 })).toEqual({ left: 0, top: 0 });
  });
});
