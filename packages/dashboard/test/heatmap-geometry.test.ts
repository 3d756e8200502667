// Page heatmap geometry: frames keep each device class's viewport shape, points land where
// their fractions say, and element boxes come from the points that name their element.
import { describe, expect, it } from 'vitest';
import { frameSize, markRadius, placePoint, VIEWPORTS } from '../src/layout/heatmap.ts';
import { deriveBoxes, extent, stackingOrder, type HeatPoint } from '../src/layout/boxes.ts';
import { markPath, signalStyle } from '../src/lib/signal-style.ts';

describe('viewport frames', () => {
  it('fits each device class into the space with its own aspect ratio', () => {
    for (const device of ['desktop', 'tablet', 'mobile'] as const) {
      const frame = frameSize(device, { width: 640, height: 480 });
      expect(frame.width).toBeLessThanOrEqual(640);
      expect(frame.height).toBeLessThanOrEqual(480);
      expect(frame.width / frame.height).toBeCloseTo(VIEWPORTS[device].width / VIEWPORTS[device].height, 1);
      // One side fills the space.
      expect(frame.width === 640 || frame.height === 480).toBe(true);
    }
    expect(frameSize('desktop', { width: 640, height: 480 })).toEqual({ width: 640, height: 400 });
    expect(frameSize('mobile', { width: 640, height: 480 })).toEqual({ width: 222, height: 480 });
  });

  it('places a point at its fraction of the frame, pinning stray values to the edge', () => {
    const frame = { width: 400, height: 250 };
    expect(placePoint({ vx: 0.25, vy: 0.8 }, frame)).toEqual({ x: 100, y: 200 });
    expect(placePoint({ vx: 0, vy: 1 }, frame)).toEqual({ x: 0, y: 250 });
    expect(placePoint({ vx: 1.2, vy: -0.1 }, frame)).toEqual({ x: 400, y: 0 });
    expect(placePoint({ vx: Number.NaN, vy: 0.5 }, frame)).toEqual({ x: 0, y: 125 });
  });

  it('keeps marks readable and shrinks them for crowded maps', () => {
    expect(markRadius({ width: 200, height: 400 }, 10)).toBe(4);
    expect(markRadius({ width: 1200, height: 750 }, 10)).toBe(8);
    expect(markRadius({ width: 1200, height: 750 }, 500)).toBe(6);
  });
});

describe('signal marks', () => {
  it('gives the heatmap signal types distinct colours and distinct shapes', () => {
    const types = ['rage_click', 'dead_click', 'disabled_element_attempt'];
    const styles = types.map(signalStyle);
    expect(new Set(styles.map((s) => s.shape)).size).toBe(3);
    expect(new Set(styles.map((s) => s.colour)).size).toBe(3);
    expect(signalStyle('something_new')).toMatchObject({ shape: 'cross', label: 'Something new' });
  });

  it('draws each shape as a closed path around its centre', () => {
    for (const shape of ['circle', 'triangle', 'square', 'diamond', 'cross'] as const) {
      const d = markPath(shape, 50, 40, 6);
      expect(d).toMatch(/^M[\d.]+ [\d.]+/);
      expect(d.endsWith('z')).toBe(true);
    }
    expect(markPath('square', 10, 10, 5)).toBe('M5.5 5.5h9v9h-9z');
  });
});

describe('element boxes derived from point selectors', () => {
  const at = (el: string | undefined, vx: number, vy: number, signal = 'dead_click'): HeatPoint => ({ vx, vy, signal, ...(el ? { el } : {}) });

  it('groups points by selector, spans them with padding, busiest first', () => {
    const points = [
      at('button#pay', 0.5, 0.8), at('button#pay', 0.56, 0.82, 'rage_click'), at('button#pay', 0.52, 0.84),
      at('a.help', 0.1, 0.1), at('a.help', 0.12, 0.16),
      at(undefined, 0.9, 0.9), at('p.lone', 0.3, 0.3),
    ];
    const boxes = deriveBoxes(points);
    expect(boxes.map((b) => b.selector)).toEqual(['button#pay', 'a.help']);
    const pay = boxes[0];
    expect(pay.count).toBe(3);
    expect(pay.signals).toEqual({ dead_click: 2, rage_click: 1 });
    expect(pay.x0).toBeCloseTo(0.49, 5);
    expect(pay.x1).toBeCloseTo(0.57, 5);
    expect(pay.y0).toBeCloseTo(0.79, 5);
    expect(pay.y1).toBeCloseTo(0.85, 5);
    for (const p of points.filter((q) => q.el === 'button#pay')) {
      expect(p.vx).toBeGreaterThanOrEqual(pay.x0);
      expect(p.vx).toBeLessThanOrEqual(pay.x1);
    }
  });

  it('never makes a box smaller than the minimum side, and keeps it inside the viewport', () => {
    expect(extent([0.5, 0.5], 0.01, 0.04)).toEqual([0.48, 0.52]);
    const [lo, hi] = extent([0.995, 0.999], 0.01, 0.04);
    expect(hi).toBe(1);
    expect(hi - lo).toBeCloseTo(0.04, 6);
    expect(extent([0, 0], 0.01, 0.04)).toEqual([0, 0.04]);
  });

  it('ignores one stray press once there are enough points', () => {
    const points = [...Array.from({ length: 19 }, (_, i) => at('#cta', 0.4 + (i % 5) * 0.01, 0.5)), at('#cta', 0.95, 0.5)];
    const [box] = deriveBoxes(points);
    expect(box.count).toBe(20);
    expect(box.x1).toBeLessThan(0.5);
  });

  it('draws the largest box first, so the smallest box containing a spot is on top', () => {
    // A busy button inside a wide, quiet paragraph: the paragraph's box covers the button's.
    const button = Array.from({ length: 10 }, (_, i) => at('#place-order', 0.5 + (i % 2) * 0.01, 0.6));
    const paragraph = [at('p.terms', 0.2, 0.3), at('p.terms', 0.8, 0.9)];
    const boxes = deriveBoxes([...button, ...paragraph]);
    expect(boxes.map((b) => b.selector)).toEqual(['#place-order', 'p.terms']);
    const drawn = stackingOrder(boxes);
    expect(drawn.map((b) => b.selector)).toEqual(['p.terms', '#place-order']);
    const [outer, inner] = drawn;
    expect(outer.x0).toBeLessThan(inner.x0);
    expect(outer.x1).toBeGreaterThan(inner.x1);
    // Equal areas keep the busiest-first order.
    const twins = deriveBoxes([at('#a', 0.1, 0.1), at('#a', 0.1, 0.1), at('#a', 0.1, 0.1), at('#b', 0.7, 0.7), at('#b', 0.7, 0.7)]);
    expect(stackingOrder(twins).map((b) => b.selector)).toEqual(['#a', '#b']);
  });

  it('honours the minimum points and the maximum number of boxes', () => {
    const points = Array.from({ length: 12 }, (_, i) => [at(`#e${i}`, 0.1, 0.1), at(`#e${i}`, 0.2, 0.2)]).flat();
    expect(deriveBoxes(points)).toHaveLength(8);
    expect(deriveBoxes(points, { max: 3 })).toHaveLength(3);
    expect(deriveBoxes(points, { minPoints: 3 })).toHaveLength(0);
  });
});
