// The page heatmap over its snapshot: scaling to the frame, presses inside an element's box by
// (rx, ry), presses on the first screen by (vx, vy), and the density layer's binning.
import { describe, expect, it } from 'vitest';
import { cellOpacity, densityGrid, fitToWidth, placeAll, placeInBox, placeInViewport, scaleBox, scalePoint } from '../src/layout/snapshot-heat.ts';


describe('the snapshot at the frame\'s width', () => {
  it('scales a wide page down to the frame, the whole scroll height with it, and never enlarges a narrow one', () => {
    expect(fitToWidth({ width: 1440, height: 3600 }, 720)).toEqual({ scale: 0.5, width: 720, height: 1800 });
    expect(fitToWidth({ width: 390, height: 1200 }, 900)).toEqual({ scale: 1, width: 390, height: 1200 });
    expect(fitToWidth({ width: 0, height: 100 }, 900).scale).toBe(1);
  });

  it('scales points and boxes by the same factor', () => {
    expect(scalePoint({ x: 100, y: 50 }, 0.5)).toEqual({ x: 50, y: 25 });
    expect(scaleBox({ x: 100, y: 40, width: 200, height: 60 }, 0.25)).toEqual({ x: 25, y: 10, width: 50, height: 15 });
  });
});

describe('placing presses', () => {
  const box = { x: 300, y: 1200, width: 160, height: 40 };

  it('puts (rx, ry) inside the element\'s own box: corners on its corners, the centre on its centre', () => {
    expect(placeInBox({ rx: 0, ry: 0 }, box)).toEqual({ x: 300, y: 1200 });
    expect(placeInBox({ rx: 1, ry: 1 }, box)).toEqual({ x: 460, y: 1240 });
    expect(placeInBox({ rx: 0.5, ry: 0.5 }, box)).toEqual({ x: 380, y: 1220 });
  });

  it('pins values outside 0..1 (and non-numbers) to the box\'s edge, so no press lands outside its element', () => {
    expect(placeInBox({ rx: -0.3, ry: 1.7 }, box)).toEqual({ x: 300, y: 1240 });
    expect(placeInBox({ rx: Number.NaN, ry: 0.25 }, box)).toEqual({ x: 300, y: 1210 });
  });

  it('puts a press known only by the window on the first screen', () => {
    expect(placeInViewport({ vx: 0.5, vy: 0.25 }, { width: 1280, height: 800 })).toEqual({ x: 640, y: 200 });
    expect(placeInViewport({ vx: 2, vy: -1 }, { width: 1280, height: 800 })).toEqual({ x: 1280, y: 0 });
  });

  it('places a found element\'s presses by the element heatmap (or the point\'s own rx, ry) and the rest by the window', () => {
    const points = [
      { vx: 0.9, vy: 0.9, signal: 'rage_click', el: '#pay' }, { vx: 0.9, vy: 0.9, signal: 'rage_click', el: '#pay' },
      { vx: 0.1, vy: 0.5, signal: 'dead_click', el: '.gone' }, { vx: 0.2, vy: 0.1, signal: 'dead_click' },
      { vx: 0.5, vy: 0.5, signal: 'rage_click', el: '#own', rx: 1, ry: 0 },
    ];
    const found = [{ selector: '#pay', count: 2, box }, { selector: '#own', count: 1, box: { x: 0, y: 0, width: 10, height: 10 } }];
    const placed = placeAll(points, found, { '#pay': [{ rx: 0.5, ry: 0.5, signal: 'rage_click' }, { rx: 0, ry: 1, signal: 'rage_click' }] }, { width: 1000, height: 800 });
    expect(placed).toEqual([
      { x: 380, y: 1220, signal: 'rage_click', el: '#pay' },
      { x: 300, y: 1240, signal: 'rage_click', el: '#pay' },
      { x: 10, y: 0, signal: 'rage_click', el: '#own' },
      { x: 100, y: 400, signal: 'dead_click', el: null },
      { x: 200, y: 80, signal: 'dead_click', el: null },
    ]);
  });
});

describe('the density layer', () => {
  it('counts points per cell, row by row, the edges in the last cell and points outside left out', () => {
    const grid = densityGrid([{ x: 0, y: 0 }, { x: 9.9, y: 9.9 }, { x: 10, y: 0 }, { x: 30, y: 20 }, { x: 31, y: 5 }, { x: -1, y: 5 }], { width: 30, height: 20 }, 10);
    expect(grid.cols).toBe(3);
    expect(grid.rows).toBe(2);
    expect(grid.counts).toEqual([2, 1, 0, 0, 0, 1]);
    expect(grid.max).toBe(2);
  });

  it('makes the busiest cell strongest, a single press still visible and an empty cell nothing', () => {
    expect(cellOpacity(0, 5)).toBe(0);
    expect(cellOpacity(5, 5)).toBeCloseTo(0.8);
    expect(cellOpacity(1, 100)).toBeGreaterThan(0.2);
    expect(cellOpacity(1, 100)).toBeLessThan(cellOpacity(50, 100));
  });
});
