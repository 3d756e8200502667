// The page heatmap: a frame of the device class's viewport, one mark per point (colour and
// shape by signal type) and a labelled box per element, derived from the points' selectors.
// A box is a button: it opens that element's heatmap. Boxes are drawn largest first, so the
// smallest box under the pointer is the one pressed. `tabindex` is lowercase on purpose: on SVG
// Preact sets attributes by their exact name, and an SVG `<g>` is focusable only by `tabindex`.
import { deriveBoxes, stackingOrder, type HeatPoint } from '../layout/boxes.ts';
import { frameSize, markRadius, placePoint, VIEWPORTS, type DeviceClass } from '../layout/heatmap.ts';
import { num } from '../lib/format.ts';
import { markPath, signalStyle } from '../lib/signal-style.ts';
import { Legend } from './bits.tsx';
import { useWidth } from './use-width.ts';

const MAX_HEIGHT: Record<DeviceClass, number> = { desktop: 520, tablet: 560, mobile: 560 };
/** Width of one character of the 11 px monospace label, to keep labels inside the frame. */
const CHAR_WIDTH = 6.7;
const labelX = (x: number, chars: number, frameWidth: number) => Math.max(2, Math.min(x + 3, frameWidth - chars * CHAR_WIDTH - 2));

export function PageHeatmap({ page, device, points, selected, onSelect }: {
  page: string; device: DeviceClass; points: HeatPoint[]; selected: string | null; onSelect(selector: string): void;
}) {
  const [box, width] = useWidth<HTMLDivElement>();
  const frame = frameSize(device, { width: Math.max(200, width - 2), height: MAX_HEIGHT[device] });
  const boxes = stackingOrder(deriveBoxes(points));
  const r = markRadius(frame, points.length);
  const types = [...new Set(points.map((p) => p.signal))].sort();
  const open = (selector: string) => onSelect(selector);
  return (
    <figure class="heatmap" ref={box}>
      <figcaption>
        Page heatmap of <strong>{page}</strong> in a <strong>{VIEWPORTS[device].name.toLowerCase()}</strong> viewport:
        {' '}{num(points.length)} point{points.length === 1 ? '' : 's'}, each where the press landed in the visible window.
      </figcaption>
      <svg class="frame" data-device={device} width={frame.width} height={frame.height} viewBox={`0 0 ${frame.width} ${frame.height}`}
        role="group" aria-label={`${VIEWPORTS[device].name} viewport of ${page}`}>
        <rect class="viewport" x="0.5" y="0.5" width={frame.width - 1} height={frame.height - 1} />
        {boxes.map((b) => {
          const x = b.x0 * frame.width, y = b.y0 * frame.height, w = (b.x1 - b.x0) * frame.width, h = (b.y1 - b.y0) * frame.height;
          const label = `${b.selector}: ${num(b.count)} presses. Open its element heatmap`;
          const name = b.selector.length > 28 ? `${b.selector.slice(0, 27)}…` : b.selector;
          return (
            <g key={b.selector} class={`el-box${selected === b.selector ? ' selected' : ''}`} role="button" tabindex={0} aria-label={label} data-selector={b.selector}
              onClick={() => open(b.selector)} onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(b.selector); } }}>
              <title>{label}</title>
              <rect x={x} y={y} width={w} height={h} rx="3" />
              <text x={labelX(x, name.length, frame.width)} y={y > 14 ? y - 4 : y + h + 12}>{name}</text>
            </g>
          );
        })}
        <g class="points">
          {points.map((p, i) => {
            const { x, y } = placePoint(p, frame);
            const s = signalStyle(p.signal);
            return <path key={i} class="pt" d={markPath(s.shape, x, y, r)} fill={s.colour} data-vx={p.vx} data-vy={p.vy} data-signal={p.signal} />;
          })}
        </g>
      </svg>
      <Legend types={types} />
    </figure>
  );
}
