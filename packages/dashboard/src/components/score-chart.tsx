// A score over time with uPlot (canvas; no inline script or style attribute, so the CSP holds),
// deploys as solid lines and annotations as dashed ones. Hovering shows the point's time, score
// and the deploys and notes nearest to it; a deploy's line is a link to the deploy. The same data
// is listed under the chart and, on request, as a table, for keyboards and screen readers.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { localTime, num, score } from '../lib/format.ts';
import { scoreAxis, timeWindow } from '../layout/scale.ts';
import { marksByPoint, tooltipPosition } from '../layout/chart-points.ts';
import { href } from '../state/router.ts';
import type { HistoryRow } from '../api/types.ts';
import { Time } from './bits.tsx';
import { Empty } from './async.tsx';
import { useWidth } from './use-width.ts';

/** A deploy or annotation on the chart; a deploy with an `id` opens its card on the Deploys screen. */
export interface Marker { at: string; label: string; kind: 'deploy' | 'annotation'; id?: string }

const COLOURS = { line: '#1f5f4a', fill: 'rgba(31, 95, 74, 0.12)', deploy: '#3b3b98', annotation: '#8a6100' };

const markerHref = (m: Marker) => (m.kind === 'deploy' && m.id ? href('deploys', m.id) : null);
const markerWords = (m: Marker) => `${m.kind === 'deploy' ? 'Deploy' : 'Note'}: ${m.label}`;

/** Lines on the canvas for every marker, and a link over each deploy's line. */
function markerPlugin(markers: Marker[]): uPlot.Plugin {
  const links: [Marker, HTMLAnchorElement][] = [];
  return {
    hooks: {
      init: [(u) => {
        for (const m of markers) {
          const target = markerHref(m);
          if (!target) continue;
          const a = document.createElement('a');
          a.className = 'chart-marker';
          a.href = target;
          a.dataset.deploy = m.id;
          a.title = `${markerWords(m)}, ${localTime(m.at)}: open the deploy`;
          a.setAttribute('aria-label', a.title);
          // A target for the pointer; keyboards reach the same link in the list under the chart.
          a.tabIndex = -1;
          u.over.appendChild(a);
          links.push([m, a]);
        }
      }],
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
        // The links sit in the cursor overlay, whose pixels are CSS pixels of the plotting area.
        const width = u.over.clientWidth;
        for (const [m, a] of links) {
          const x = u.valToPos(Date.parse(m.at) / 1000, 'x');
          a.hidden = !(x >= 0 && x <= width);
          a.style.left = `${Math.round(x)}px`;
        }
      }],
    },
  };
}

/** A box in the plot that follows the cursor: the nearest point's time and score, and its marks. */
function tooltipPlugin(times: number[], scores: number[], marks: Marker[][]): uPlot.Plugin {
  let tip: HTMLDivElement;
  return {
    hooks: {
      init: [(u) => {
        tip = document.createElement('div');
        tip.className = 'chart-tip';
        tip.hidden = true;
        // The table view and the list under the chart carry the same words for assistive technology.
        tip.setAttribute('aria-hidden', 'true');
        u.over.appendChild(tip);
      }],
      setCursor: [(u) => {
        const idx = u.cursor.idx;
        if (idx == null || u.cursor.left == null || u.cursor.left < 0) { tip.hidden = true; return; }
        const lines = [
          ['chart-tip-value', `Score ${score(scores[idx])}`],
          ['chart-tip-time', localTime(new Date(times[idx] * 1000).toISOString())],
          ...marks[idx].map((m) => [`chart-tip-mark chart-tip-${m.kind}`, markerWords(m)]),
        ];
        tip.replaceChildren(...lines.map(([cls, text]) => {
          const line = document.createElement('div');
          line.className = cls;
          line.textContent = text;
          return line;
        }));
        tip.hidden = false;
        const at = tooltipPosition({ left: u.cursor.left, top: u.cursor.top ?? 0 }, { width: tip.offsetWidth, height: tip.offsetHeight }, { width: u.over.clientWidth, height: u.over.clientHeight });
        tip.style.left = `${at.left}px`;
        tip.style.top = `${at.top}px`;
      }],
    },
  };
}

function MarkerText({ m }: { m: Marker }) {
  const target = markerHref(m);
  return <>{m.kind === 'deploy' ? 'Deploy' : 'Note'}: {target ? <a href={target}>{m.label}</a> : m.label}</>;
}

/** The chart's points as a table: what the tooltip shows, reachable without a mouse. */
function PointsTable({ rows, marks, label }: { rows: HistoryRow[]; marks: Marker[][]; label: string }) {
  return (
    <div class="table-scroll">
      <table class="chart-table">
        <caption>{label}: every point, oldest first</caption>
        <thead><tr><th scope="col">Time</th><th scope="col" class="num">Score</th><th scope="col" class="num">Active users</th><th scope="col">Deploys and notes</th></tr></thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.cycle_at}>
              <td><Time iso={r.cycle_at} /></td>
              <td class="num">{score(r.score)}</td>
              <td class="num">{num(r.active_users)}</td>
              <td>{marks[i].length === 0 ? <span class="muted">–</span> : marks[i].map((m, k) => <div key={k}><MarkerText m={m} /></div>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

let tableIds = 0;

export function ScoreChart({ history, days, markers, label }: { history: HistoryRow[]; days: number; markers: Marker[]; label: string }) {
  const [box, width] = useWidth<HTMLDivElement>();
  const holder = useRef<HTMLDivElement>(null);
  const [showTable, setShowTable] = useState(false);
  const [tableId] = useState(() => `chart-table-${++tableIds}`);
  const rows = [...history].sort((a, b) => Date.parse(a.cycle_at) - Date.parse(b.cycle_at));
  const now = Date.now();
  const [from, to] = timeWindow(days, now);
  const inWindow = markers.filter((m) => Date.parse(m.at) / 1000 >= from);
  // Callers build the marker list on every render: redraw only when its content changes.
  const markerKey = inWindow.map((m) => `${m.kind}${m.at}${m.label}${m.id ?? ''}`).join('|');
  const xs = rows.map((r) => Date.parse(r.cycle_at));
  // A mark more than a day from every point belongs to none of them (a gap in the history).
  const marks = marksByPoint(xs, inWindow.map((m) => ({ ...m, atMs: Date.parse(m.at) })), 86_400_000);

  useEffect(() => {
    if (!holder.current || rows.length === 0) return;
    const times = xs.map((x) => x / 1000);
    const ys = rows.map((r) => r.score);
    const [y0, y1] = scoreAxis(ys);
    const plot = new uPlot({
      width: Math.max(280, width),
      height: width < 500 ? 180 : 240,
      legend: { show: false },
      // The window is fixed by the period: no drag to zoom, so a press on a deploy's link is a click.
      // uPlot follows only moves over its overlay itself; the deploy links are in it, so moves over them count too.
      cursor: {
        drag: { x: false, y: false, setScale: false }, points: { size: 8 },
        bind: { mousemove: (_u, _target, handler) => (e) => handler(e) },
      },
      scales: { x: { time: true, range: [from, to] }, y: { range: [y0, y1] } },
      axes: [
        { stroke: '#4a5259', grid: { stroke: '#e4e7ea' } },
        { stroke: '#4a5259', grid: { stroke: '#e4e7ea' }, size: 54, values: (_u, ticks) => ticks.map((t) => score(t)) },
      ],
      series: [{}, { label: 'Score', stroke: COLOURS.line, width: 2, fill: COLOURS.fill, points: { show: rows.length < 40 } }],
      plugins: [markerPlugin(inWindow), tooltipPlugin(times, ys, marks)],
    }, [times, ys], holder.current);
    return () => plot.destroy();
  }, [history, width, days, markerKey]);

  if (rows.length === 0) return <Empty>No score history in this period yet: scores appear after the first pipeline cycle.</Empty>;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const summary = `${label}: ${score(first.score)} on ${localTime(first.cycle_at)} to ${score(last.score)} on ${localTime(last.cycle_at)}, ${rows.length} points.`;
  return (
    <figure class="chart" ref={box}>
      <div ref={holder} class="chart-plot" role="img" aria-label={summary} />
      <figcaption>
        <span class="key key-deploy">Deploys (choose one to open it)</span> <span class="key key-annotation">Annotations</span>
        {' '}<button type="button" class="link chart-table-toggle" aria-expanded={showTable} aria-controls={tableId} onClick={() => setShowTable(!showTable)}>
          {showTable ? 'Hide the table' : `Table view (${rows.length} points)`}
        </button>
        {inWindow.length > 0 && (
          <ul class="markers">
            {inWindow.map((m) => <li key={`${m.kind}${m.at}${m.label}`}><Time iso={m.at} short /> · <MarkerText m={m} /></li>)}
          </ul>
        )}
      </figcaption>
      <div id={tableId}>{showTable && <PointsTable rows={rows} marks={marks} label={label} />}</div>
    </figure>
  );
}
