// The journey map's layered layout: columns follow the journeys, cycles become back edges,
// widths follow the friction weight.
import { describe, expect, it } from 'vitest';
import { edgeWidth, layoutJourney, NODE } from '../src/layout/journey.ts';

const edge = (from: string, to: string, friction_weight: number) => ({ from, to, friction_weight });

describe('journey layout', () => {
  it('puts each page one column right of the pages leading to it', () => {
    const layout = layoutJourney([edge('/cart', '/checkout', 100), edge('/products', '/cart', 50), edge('/', '/products', 10), edge('/', '/cart', 5)]);
    const layer = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layer).toEqual({ '/': 0, '/products': 1, '/cart': 2, '/checkout': 3 });
    expect(layout.links.every((l) => l.kind === 'forward')).toBe(true);
    const x = Object.fromEntries(layout.nodes.map((n) => [n.id, n.x]));
    expect(x['/products']).toBeGreaterThan(x['/'] + NODE.width);
    expect(layout.width).toBeGreaterThanOrEqual(x['/checkout'] + NODE.width);
  });

  it('keeps the heavier direction of a cycle forward and draws loops on their page', () => {
    const layout = layoutJourney([edge('/a', '/b', 10), edge('/b', '/a', 3), edge('/b', '/b', 7)]);
    const kinds = Object.fromEntries(layout.links.map((l) => [`${l.from}>${l.to}`, l.kind]));
    expect(kinds).toEqual({ '/a>/b': 'forward', '/b>/a': 'back', '/b>/b': 'self' });
    const back = layout.links.find((l) => l.kind === 'back')!;
    // A back edge curves under the columns.
    const lowest = Math.max(...layout.nodes.map((n) => n.y + NODE.height));
    expect(Number(back.d.split(/[ C]/)[3])).toBeGreaterThan(lowest);
    expect(layout.height).toBeGreaterThan(lowest + 30);
  });

  it('stacks pages of one column without overlap', () => {
    const layout = layoutJourney([edge('/', '/a', 1), edge('/', '/b', 2), edge('/', '/c', 3)]);
    const column = layout.nodes.filter((n) => n.layer === 1).sort((a, b) => a.y - b.y);
    expect(column.map((n) => n.id)).toEqual(['/c', '/b', '/a']);
    for (let i = 1; i < column.length; i++) expect(column[i].y - column[i - 1].y).toBeGreaterThanOrEqual(NODE.height);
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
