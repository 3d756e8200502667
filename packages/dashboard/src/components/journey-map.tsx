// The friction journey map: pages as boxes in columns, edges as curves as wide as their
// friction weight. The ranked list beside it is the same data in words; focusing or hovering
// a row highlights its edge.
import { layoutJourney, NODE } from '../layout/journey.ts';
import { num } from '../lib/format.ts';
import type { FrictionEdge } from '../state/types.ts';

const short = (page: string) => (page.length > 20 ? `${page.slice(0, 19)}…` : page);

/** The heaviest edges are drawn (a graph of every edge is unreadable); the list has them all. */
export const DRAWN_EDGES = 20;

export function JourneyMap({ edges, active }: { edges: FrictionEdge[]; active: number | null }) {
  const layout = layoutJourney(edges.slice(0, DRAWN_EDGES));
  return (
    <div class="journey-scroll">
      <svg class="journey" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="img" aria-label={`Friction journey map: ${layout.nodes.length} pages, ${layout.links.length} edges; the list beside it has the same edges in words`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse">
            <path d="M0 0L10 5L0 10z" class="arrowhead" />
          </marker>
        </defs>
        {layout.links.map((l, i) => (
          <path key={`${l.from}>${l.to}`} class={`edge edge-${l.kind}${active === i ? ' active' : ''}`} d={l.d} stroke-width={l.width} marker-end="url(#arrow)" data-from={l.from} data-to={l.to}>
            <title>{`${l.from} → ${l.to}: friction weight ${num(l.weight, 1)} (sum of signal weight × confidence)`}</title>
          </path>
        ))}
        {layout.nodes.map((n) => (
          <g key={n.id} class="node" data-page={n.id}>
            <title>{n.id}</title>
            <rect x={n.x} y={n.y} width={NODE.width} height={NODE.height} rx="5" />
            <text x={n.x + 8} y={n.y + NODE.height / 2 + 4}>{short(n.id)}</text>
          </g>
        ))}
      </svg>
    </div>
  );
}
