// The friction journey map: pages as boxes in columns, edges as curves as wide as their
// friction weight, with a legend for the colours and widths. The ranked list beside it is the
// same data in words; focusing or hovering a row highlights its edge. The map scrolls inside
// its own frame, so a phone's page never scrolls sideways.
import { layoutJourney, NODE } from '../layout/journey.ts';
import { num } from '../lib/format.ts';
import type { FrictionEdge } from '../api/types.ts';

/**
 * Friction weight in its unit. A point is one signal of weight 1 seen with full confidence: the
 * sum over an edge's signals of signal weight x confidence (a rage click weighs 25, a dead click 12).
 */
export const frictionWeight = (weight: number) => `${num(weight, 1)} friction points`;
export const FRICTION_UNIT = 'Friction weight is counted in points: each friction signal on the two pages either side of a step adds its signal weight × its confidence (0 to 1), so a rage click adds up to 25 points and a dead click up to 12.';

const LEGEND: [kind: string, words: string][] = [
  ['edge-forward', 'orange: a step to a page further along'],
  ['edge-back', 'blue: a step back to an earlier page (curves round the right)'],
  ['edge-self', 'dark red: a reload or a step within the same page'],
  ['edge-active', 'bright blue: the step chosen in the list'],
];

function Legend({ min, max }: { min: number; max: number }) {
  return (
    <ul class="journey-legend" aria-label="Legend of the journey map">
      {LEGEND.map(([kind, words]) => (
        <li key={kind}><svg width="28" height="10" aria-hidden="true"><path class={`swatch ${kind}`} d="M2 5H26" stroke-width="4" /></svg>{words}</li>
      ))}
      <li><svg width="28" height="16" aria-hidden="true"><path class="swatch edge-forward" d="M2 4H26" stroke-width="1.5" /><path class="swatch edge-forward" d="M2 12H26" stroke-width="7" /></svg>
        width: friction weight, from {frictionWeight(min)} (thinnest) to {frictionWeight(max)} (widest)</li>
    </ul>
  );
}

const short = (page: string) => (page.length > 20 ? `${page.slice(0, 19)}…` : page);

/** The heaviest edges are drawn (a graph of every edge is unreadable); the list has them all. */
export const DRAWN_EDGES = 20;

export function JourneyMap({ edges, active }: { edges: FrictionEdge[]; active: number | null }) {
  const drawn = edges.slice(0, DRAWN_EDGES);
  const layout = layoutJourney(drawn);
  const weights = drawn.map((e) => e.friction_weight);
  return (
    <>
    <div class="journey-scroll" tabIndex={0} aria-label="Journey map (scrolls inside this frame)">
      <svg class="journey" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="img" aria-label={`Friction journey map: ${layout.nodes.length} pages, ${layout.links.length} edges; the list beside it has the same edges in words`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse">
            <path d="M0 0L10 5L0 10z" class="arrowhead" />
          </marker>
        </defs>
        {layout.links.map((l, i) => (
          <path key={`${l.from}>${l.to}`} class={`edge edge-${l.kind}${active === i ? ' active' : ''}`} d={l.d} stroke-width={l.width} marker-end="url(#arrow)" data-from={l.from} data-to={l.to}>
            <title>{`${l.from} → ${l.to}: ${frictionWeight(l.weight)} (sum of signal weight × confidence)`}</title>
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
    <Legend min={Math.min(...weights)} max={Math.max(...weights)} />
    <p class="journey-unit muted small">{FRICTION_UNIT}</p>
    </>
  );
}
