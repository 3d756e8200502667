// The element heatmap's 3x3 grid and its one plain sentence.
import { describe, expect, it } from 'vitest';
import { gridCounts, placementSentence, type ElementPoint } from '../src/layout/element-grid.ts';

const p = (rx: number, ry: number): ElementPoint => ({ rx, ry, signal: 'rage_click' });

describe('element grid', () => {
  it('counts presses per cell, rows top to bottom and columns left to right, edges included', () => {
    const grid = gridCounts([p(0, 0), p(0.99, 0.1), p(1, 1), p(0.5, 0.5), p(0.34, 0.66), p(0.333, 0.667)]);
    expect(grid).toEqual([
      [1, 0, 1],
      [0, 2, 0],
      [1, 0, 1],
    ]);
  });

  it('names the busiest third in one sentence', () => {
    const right = [...Array(18)].map(() => p(0.8, 0.5)).concat([...Array(7)].map(() => p(0.1, 0.2)));
    expect(placementSentence(right)).toBe('72 % of presses land in the right third.');
    const bottom = [p(0.1, 0.9), p(0.5, 0.8), p(0.9, 0.95), p(0.5, 0.1)];
    expect(placementSentence(bottom)).toBe('75 % of presses land in the bottom third.');
  });

  it('says when presses are spread, when all land in one third, and when there are none', () => {
    expect(placementSentence([p(0.1, 0.1), p(0.5, 0.5), p(0.9, 0.9)])).toBe('The 3 presses are spread over the element: no third holds half of them.');
    expect(placementSentence([p(0.1, 0.5), p(0.2, 0.6)])).toBe('All 2 presses land in the left third.');
    expect(placementSentence([p(0.5, 0.1)])).toBe('The one press landed in the middle third.');
    expect(placementSentence([])).toBe('No presses were recorded on this element.');
  });
});
