// The page heatmap over the page itself: the page's latest snapshot rebuilt in a sandboxed
// frame (no script runs; lib/snapshot-frame.ts, loaded on demand) at the card's width, a
// density layer of the presses, each element's presses inside the element's own box (found by
// its selector in the rebuilt page) and the element boxes as buttons, largest first so the
// smallest box under the pointer is the one pressed, each reachable by Tab (lowercase
// `tabindex`: see page-heatmap.tsx). Presses whose element is not in the snapshot sit on its
// first screen by where they landed in the window.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import type { ElementHeatmap as ElementHeatmapData, PageSnapshot } from '../api/types.ts';
import { deriveBoxes, stackingOrder } from '../layout/boxes.ts';
import { VIEWPORTS, type DeviceClass } from '../layout/heatmap.ts';
import { cellOpacity, densityGrid, fitToWidth, placeAll, scaleBox, scalePoint, type Found, type HeatPoint, type Point } from '../layout/snapshot-heat.ts';
import { num } from '../lib/format.ts';
import { markPath, signalStyle } from '../lib/signal-style.ts';
import type { RebuiltSnapshot } from '../lib/snapshot-frame.ts';
import { Legend } from './bits.tsx';
import { rangeQuery, type Range } from './filters.tsx';
import { useWidth } from './use-width.ts';


/** Side of a density cell in drawn pixels: coarse enough to read as areas, not dots. */
const CELL = 18;

function DensityLayer({ points, width, height }: { points: Point[]; width: number; height: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (!ctx) return;
    ctx.clearRect(0, 0, width, height);
    const grid = densityGrid(points, { width, height }, CELL);
    ctx.filter = `blur(${CELL / 2}px)`; // cells melt into areas
    for (let i = 0; i < grid.counts.length; i++) {
      const a = cellOpacity(grid.counts[i], grid.max);
      if (a === 0) continue;
      ctx.fillStyle = `rgba(213, 94, 0, ${a.toFixed(3)})`;
      ctx.fillRect((i % grid.cols) * CELL, Math.floor(i / grid.cols) * CELL, CELL, CELL);
    }
  }, [points, width, height]);
  return <canvas ref={canvas} class="density" width={width} height={height} aria-hidden="true" />;
}

export function SnapshotHeatmap({ site, page, device, range, points, snapshot, selected, onSelect, onUnusable }: {
  site: string; page: string; device: DeviceClass; range: Range; points: HeatPoint[]; snapshot: PageSnapshot;
  selected: string | null; onSelect(selector: string): void; onUnusable(): void;
}) {
  const [box, width] = useWidth<HTMLDivElement>();
  const host = useRef<HTMLDivElement>(null);
  const [rebuilt, setRebuilt] = useState<RebuiltSnapshot | null>(null);
  const [inElement, setInElement] = useState<Record<string, ElementHeatmapData['points']>>({});
  const fit = fitToWidth(snapshot, Math.max(200, width - 2));

  useEffect(() => {
    const root = host.current;
    if (!root) return;
    let live = true;
    let made: RebuiltSnapshot | null = null;
    import('../lib/snapshot-frame.ts').then(({ rebuildSnapshot }) => {
      if (!live) return;
      made = rebuildSnapshot(root, snapshot.snapshot, snapshot, `Snapshot of ${page}`);
      setRebuilt(made);
    }).catch(() => { if (live) onUnusable(); });
    return () => { live = false; made?.iframe.remove(); setRebuilt(null); };
  }, [snapshot]);

  const candidates = stackingOrder(deriveBoxes(points));
  const found: Found[] = rebuilt
    ? candidates.flatMap((b) => { const at = rebuilt.boxOf(b.selector); return at ? [{ selector: b.selector, count: b.count, box: at }] : []; })
    : [];
  const foundKey = found.map((f) => f.selector).join('\n');

  // The element heatmaps of the elements found: their presses carry (rx, ry) within the element.
  useEffect(() => {
    if (!foundKey) return;
    let live = true;
    // The period as the page's heatmap has it (computed here: `from` moves with the clock, so it is no dependency).
    const period = rangeQuery(range);
    Promise.all(found.map((f) => api.get<ElementHeatmapData>('/query/element-heatmap', { ...period, site_id: site, page, selector: f.selector, device })
      .then((h) => [f.selector, h.points] as const, () => [f.selector, []] as const)))
      .then((pairs) => { if (live) setInElement(Object.fromEntries(pairs)); });
    return () => { live = false; };
  }, [foundKey, site, page, device, range]);

  const viewportHeight = Math.round(snapshot.width * VIEWPORTS[device].height / VIEWPORTS[device].width);
  const placed = rebuilt ? placeAll(points, found, inElement, { width: snapshot.width, height: Math.min(snapshot.height, viewportHeight) }) : [];
  const drawn = placed.map((p) => ({ ...p, ...scalePoint(p, fit.scale) }));
  // Largest first, as on the viewport frame: the smallest box under the pointer takes the press.
  const boxes = [...found].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  const r = Math.max(3.5, Math.min(7, fit.width / 120));
  const types = [...new Set(points.map((p) => p.signal))].sort();

  return (
    <figure class="heatmap over-snapshot" ref={box}>
      <figcaption>
        Page heatmap of <strong>{page}</strong> over its latest snapshot ({VIEWPORTS[device].name.toLowerCase()}, {num(snapshot.width)} px wide):
        {' '}{num(points.length)} point{points.length === 1 ? '' : 's'}; an element's presses sit inside its box, the others where they landed on the first screen.
      </figcaption>
      <div class="snapshot-scroll">
        <div class="snapshot-stage" style={{ width: `${fit.width}px`, height: `${fit.height}px` }} data-scale={fit.scale}>
          <div class="snapshot-page" ref={host} style={{ width: `${snapshot.width}px`, height: `${snapshot.height}px`, transform: `scale(${fit.scale})` }} />
          {rebuilt && <DensityLayer points={drawn} width={fit.width} height={fit.height} />}
          <svg class="snapshot-overlay" width={fit.width} height={fit.height} viewBox={`0 0 ${fit.width} ${fit.height}`} role="group" aria-label={`Presses over the snapshot of ${page}`}>
            {boxes.map((f) => {
              const b = scaleBox(f.box, fit.scale);
              const label = `${f.selector}: ${num(f.count)} presses. Open its element heatmap`;
              const open = () => onSelect(f.selector);
              return (
                <g key={f.selector} class={`el-box${selected === f.selector ? ' selected' : ''}`} role="button" tabindex={0} aria-label={label} data-selector={f.selector}
                  onClick={open} onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } }}>
                  <title>{label}</title>
                  <rect x={b.x} y={b.y} width={b.width} height={b.height} rx="2" />
                </g>
              );
            })}
            <g class="points">
              {drawn.map((p, i) => {
                const s = signalStyle(p.signal);
                return <path key={i} class="pt" d={markPath(s.shape, p.x, p.y, r)} fill={s.colour} data-signal={p.signal} data-el={p.el ?? undefined} data-x={p.x.toFixed(1)} data-y={p.y.toFixed(1)} />;
              })}
            </g>
          </svg>
          {!rebuilt && <p class="state loading snapshot-loading" role="status">Drawing the page…</p>}
        </div>
      </div>
      <Legend types={types} />
    </figure>
  );
}
