// The journey map's layered layout: rows follow the journeys, cycles become back edges,
// widths follow the friction weight.
import { describe, expect, it } from 'vitest';
import { edgeWidth, layoutJourney, NODE } from '../src/layout/journey.ts';

const edge = (from: string, to: string, friction_weight: number) => ({ from, to, friction_weight });

describe('journey layout', () => {
  it('puts each page one row below the pages leading to it', () => {
    const layout = layoutJourney([edge('/cart', '/checkout', 100), edge('/products', '/cart', 50), edge('/', '/products', 10), edge('/', '/cart', 5)]);
    const layer = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layer).toEqual({ '/': 0, '/products': 1, '/cart': 2, '/checkout': 3 });
    expect(layout.links.every((l) => l.kind === 'forward')).toBe(true);
    const y = Object.fromEntries(layout.nodes.map((n) => [n.id, n.y]));
    expect(y['/products']).toBeGreaterThan(y['/'] + NODE.height);
    expect(layout.height).toBeGreaterThanOrEqual(y['/checkout'] + NODE.height);
    expect(layout.width).toBeGreaterThanOrEqual(Math.max(...layout.nodes.map((n) => n.x + NODE.width)));
  });

  it('keeps the heavier direction of a cycle forward and draws loops on their page', () => {
    const layout = layoutJourney([edge('/a', '/b', 10), edge('/b', '/a', 3), edge('/b', '/b', 7)]);
    const kinds = Object.fromEntries(layout.links.map((l) => [`${l.from}>${l.to}`, l.kind]));
    expect(kinds).toEqual({ '/a>/b': 'forward', '/b>/a': 'back', '/b>/b': 'self' });
    const back = layout.links.find((l) => l.kind === 'back')!;
    // A back edge curves round the right of the rows.
    const rightmost = Math.max(...layout.nodes.map((n) => n.x + NODE.width));
    expect(Number(back.d.split(/[ C]/)[2])).toBeGreaterThan(rightmost);
    expect(layout.width).toBeGreaterThan(rightmost + 30);
  });

  it('lines up the pages of one row without overlap, heaviest first', () => {
    const layout = layoutJourney([edge('/', '/a', 1), edge('/', '/b', 2), edge('/', '/c', 3)]);
    const row = layout.nodes.filter((n) => n.layer === 1).sort((a, b) => a.x - b.x);
    expect(row.map((n) => n.id)).toEqual(['/c', '/b', '/a']);
    for (let i = 1; i < row.length; i++) expect(row[i].x - row[i - 1].x).toBeGreaterThanOrEqual(NODE.width);
  });

  it('widens edges with the square root of their weight, within bounds', () => {
    expect(edgeWidth(100, 100)).toBe(14);
    expect(edgeWidth(25, 100)).toBeCloseTo(1.5 + 12.5 * 0.5, 6);
    expect(edgeWidth(0, 100)).toBe(1.5);
    expect(edgeWidth(5, 0)).toBe(1.5);
  });

  it('lays out nothing for no edges', () => {
    expect(layoutJourney([])).toMatchObject({ nodes: [], links: [] });
  });
});
