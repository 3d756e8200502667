// A score over time with uPlot (canvas; no inline script or style attribute, so the CSP holds),
// deploys as solid lines and annotations as dashed ones, listed under the chart for people
// who cannot see it.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { localTime, score } from '../lib/format.ts';
import { scoreAxis, timeWindow } from '../layout/scale.ts';
import type { HistoryRow } from '../state/types.ts';
import { Time } from './bits.tsx';
import { Empty } from './async.tsx';
import { useWidth } from './use-width.ts';

export interface Marker { at: string; label: string; kind: 'deploy' | 'annotation' }

const COLOURS = { line: '#1f5f4a', fill: 'rgba(31, 95, 74, 0.12)', deploy: '#3b3b98', annotation: '#8a6100' };

function markerPlugin(markers: Marker[]): uPlot.Plugin {
  return {
    hooks: {
      draw: [(u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
        for (const m of markers) {
          const x = u.valToPos(Date.parse(m.at) / 1000, 'x', true);
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.strokeStyle = ctx.fillStyle = m.kind === 'deploy' ? COLOURS.deploy : COLOURS.annotation;
          ctx.lineWidth = devicePixelRatio * 1.5;
          ctx.setLineDash(m.kind === 'deploy' ? [] : [4 * devicePixelRatio, 3 * devicePixelRatio]);
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
          if (m.kind === 'deploy') ctx.fillText(m.label, x + 3 * devicePixelRatio, bbox.top + 12 * devicePixelRatio);
        }
        ctx.restore();
      }],
    },
  };
}

export function ScoreChart({ history, days, markers, label }: { history: HistoryRow[]; days: number; markers: Marker[]; label: string }) {
  const [box, width] = useWidth<HTMLDivElement>();
  const holder = useRef<HTMLDivElement>(null);
  const rows = [...history].sort((a, b) => Date.parse(a.cycle_at) - Date.parse(b.cycle_at));
  const now = Date.now();
  const [from, to] = timeWindow(days, now);
  const inWindow = markers.filter((m) => Date.parse(m.at) / 1000 >= from);
  // Callers build the marker list on every render: redraw only when its content changes.
  const markerKey = inWindow.map((m) => `${m.kind}${m.at}${m.label}`).join('|');

  useEffect(() => {
    if (!holder.current || rows.length === 0) return;
    const xs = rows.map((r) => Date.parse(r.cycle_at) / 1000);
    const ys = rows.map((r) => r.score);
    const [y0, y1] = scoreAxis(ys);
    const plot = new uPlot({
      width: Math.max(280, width),
      height: width < 500 ? 180 : 240,
      legend: { show: false },
      scales: { x: { time: true, range: [from, to] }, y: { range: [y0, y1] } },
      axes: [
        { stroke: '#4a5259', grid: { stroke: '#e4e7ea' } },
        { stroke: '#4a5259', grid: { stroke: '#e4e7ea' }, size: 54, values: (_u, ticks) => ticks.map((t) => score(t)) },
      ],
      series: [{}, { label: 'Score', stroke: COLOURS.line, width: 2, fill: COLOURS.fill, points: { show: rows.length < 40 } }],
      plugins: [markerPlugin(inWindow)],
    }, [xs, ys], holder.current);
    return () => plot.destroy();
  }, [history, width, days, markerKey]);

  if (rows.length === 0) return <Empty>No score history in this period yet: scores appear after the first pipeline cycle.</Empty>;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const summary = `${label}: ${score(first.score)} on ${localTime(first.cycle_at)} to ${score(last.score)} on ${localTime(last.cycle_at)}, ${rows.length} points.`;
  return (
    <figure class="chart" ref={box}>
      <div ref={holder} role="img" aria-label={summary} />
      <figcaption>
        <span class="key key-deploy">Deploys</span> <span class="key key-annotation">Annotations</span>
        {inWindow.length > 0 && (
          <ul class="markers">
            {inWindow.map((m) => <li key={`${m.kind}${m.at}${m.label}`}><Time iso={m.at} short /> · {m.kind === 'deploy' ? 'Deploy' : 'Note'}: {m.label}</li>)}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
