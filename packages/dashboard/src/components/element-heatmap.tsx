// The element heatmap: the element as a box with a 3x3 grid, each press at (rx, ry) inside it,
// the cells shaded by how many landed there, and one plain sentence.
import { gridCounts, placementSentence, type ElementPoint } from '../layout/element-grid.ts';
import { num } from '../lib/format.ts';
import { markPath, signalStyle } from '../lib/signal-style.ts';
import { Legend } from './bits.tsx';

const W = 360;
const H = 180;

export function ElementHeatmap({ page, selector, device, points, highlight }: {
  page: string; selector: string; device: string; points: ElementPoint[]; highlight?: string;
}) {
  const grid = gridCounts(points);
  const most = Math.max(1, ...grid.flat());
  const types = [...new Set(points.map((p) => p.signal))].sort();
  return (
    <figure class="element-heatmap">
      <figcaption>
        Element heatmap of <code>{selector}</code> on <strong>{page}</strong> ({device}): {num(points.length)} press{points.length === 1 ? '' : 'es'}.
      </figcaption>
      <svg class="element-box" viewBox={`-4 -4 ${W + 8} ${H + 8}`} role="img" aria-label={`${selector}: ${placementSentence(points)}`}>
        {grid.map((row, ri) => row.map((count, ci) => (
          <g key={`${ri}${ci}`}>
            <rect class="cell" x={(ci * W) / 3} y={(ri * H) / 3} width={W / 3} height={H / 3} fill-opacity={0.06 + 0.34 * (count / most)} />
            <text class="cell-count" x={(ci * W) / 3 + 6} y={(ri * H) / 3 + 16}>{num(count)}</text>
          </g>
        )))}
        <rect class="outline" x="0" y="0" width={W} height={H} rx="6" />
        {points.map((p, i) => {
          const s = signalStyle(p.signal);
          const dim = highlight && p.signal !== highlight;
          return <path key={i} class={`pt${dim ? ' dim' : ''}`} d={markPath(s.shape, p.rx * W, p.ry * H, 5)} fill={s.colour} data-rx={p.rx} data-ry={p.ry} />;
        })}
      </svg>
      <p class="sentence">{placementSentence(points)}</p>
      <Legend types={types} />
    </figure>
  );
}
