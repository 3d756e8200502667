import { describe, expect, it } from 'vitest';
import { nextPages, previousPages } from '../src/lib/flows.ts';

const EDGES = [
  { from: '/cart', to: '/checkout', transitions: 30, sessions: 25 },
  { from: '/cart', to: '/', transitions: 10, sessions: 9 },
  { from: '/', to: '/cart', transitions: 50, sessions: 40 },
  { from: '/checkout', to: '/cart', transitions: 10, sessions: 10 },
];

describe('flows by page', () => {
  it('groups the next pages of each page with their share, busiest page and step first', () => {
    const next = nextPages(EDGES);
    expect(next.map((p) => [p.page, p.transitions])).toEqual([['/', 50], ['/cart', 40], ['/checkout', 10]]);
    expect(next[1].steps).toEqual([
      { page: '/checkout', transitions: 30, sessions: 25, share: 0.75 },
      { page: '/', transitions: 10, sessions: 9, share: 0.25 },
    ]);
  });

  it('groups where people came from, the other way round', () => {
    const previous = previousPages(EDGES);
    expect(previous.map((p) => [p.page, p.transitions])).toEqual([['/cart', 60], ['/checkout', 30], ['/', 10]]);
    expect(previous[0].steps.map((s) => [s.page, s.share])).toEqual([['/', 50 / 60], ['/checkout', 10 / 60]]);
  });

  it('answers nothing for no edges', () => {
    expect(nextPages([])).toEqual([]);
  });
});
