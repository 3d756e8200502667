// Chart scales: linear mapping, round ticks, the score axis, the time window and bar widths.
import { describe, expect, it } from 'vitest';
import { barWidths, linearScale, niceStep, niceTicks, scoreAxis, timeWindow } from '../src/layout/scale.ts';

describe('chart scales', () => {
  it('maps a domain onto a range, reversed ranges included', () => {
    const x = linearScale([0, 100], [0, 400]);
    expect(x(25)).toBe(100);
    const y = linearScale([0, 50], [200, 0]);
    expect(y(0)).toBe(200);
    expect(y(50)).toBe(0);
    expect(linearScale([5, 5], [10, 20])(5)).toBe(10);
  });

  it('picks round steps and ticks', () => {
    expect(niceStep(100, 5)).toBe(20);
    expect(niceStep(7, 5)).toBe(2);
    expect(niceStep(0.9, 5)).toBe(0.2);
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(3, 17, 4)).toEqual([5, 10, 15]);
  });

  it('runs the score axis from 0 to a round value above the highest score, between 10 and 100', () => {
    expect(scoreAxis([2.4, 8.6])).toEqual([0, 10]);
    expect(scoreAxis([42.7, 12])).toEqual([0, 50]);
    expect(scoreAxis([97])).toEqual([0, 100]);
    expect(scoreAxis([])).toEqual([0, 10]);
  });

  it('gives the chart window in seconds, ending now', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    expect(timeWindow(7, now)).toEqual([(now - 7 * 86_400_000) / 1000, now / 1000]);
  });

  it('sizes bars against the largest value, keeping small ones visible and zero empty', () => {
    expect(barWidths([10, 5, 0, 0.01], 200)).toEqual([200, 100, 0, 2]);
    expect(barWidths([0, 0], 200)).toEqual([0, 0]);
    expect(barWidths([50], 200, 100)).toEqual([100]);
  });
});
