// Page detail: score, breakdown by signal, history, the page heatmap per device class, the
// elements with friction bars (a row opens its element heatmap), issues needing attention,
// recent deploys, budgets with consumption, active alerts and annotations. Every block says
// which window its numbers cover; the device and period filters apply to the history, the
// heatmaps and the elements, and the blocks they cannot change say so.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import { href, navigate, route } from '../state/router.ts';
import type { ElementHeatmap as ElementHeatmapData, ElementList, ElementRow, IssueList, PageDetail, PageHeatmap as PageHeatmapData, PageSnapshot, Scores, Trends } from '../api/types.ts';
import { useCurrency } from '../state/currency.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, Score, SignalChip, Time, Trend, Window } from '../components/bits.tsx';
import { Bar } from '../components/bar.tsx';
import { ScoreChart } from '../components/score-chart.tsx';
import { PageHeatmap } from '../components/page-heatmap.tsx';
import { SnapshotHeatmap } from '../components/snapshot-heatmap.tsx';
import { useClipsOn } from '../components/clips.tsx';
import { ElementHeatmap } from '../components/element-heatmap.tsx';
import { DevicePicker, RangePicker, asDevice, asRange, rangeQuery, RANGES, type Range } from '../components/filters.tsx';
import { AlertList } from './overview.tsx';
import { DeployChange } from './deploys.tsx';
import { IssueColumnsNote, IssueRows } from './issues.tsx';
import { ATTENTION_WORDS } from '../lib/issue-query.ts';
import { num, percent, words } from '../lib/format.ts';
import { VIEWPORTS, type DeviceClass } from '../layout/heatmap.ts';

function Breakdown({ detail }: { detail: PageDetail }) {
  const rows = detail.score?.breakdown ?? [];
  if (rows.length === 0) return <Empty>No friction signals in the latest window.</Empty>;
  return (
    <table class="breakdown">
      <thead><tr><th scope="col">Signal</th><th scope="col" class="num">Count</th><th scope="col">Share of the score</th></tr></thead>
      <tbody>
        {rows.map((b) => (
          <tr key={b.signal}>
            <th scope="row"><SignalChip type={b.signal} /></th>
            <td class="num">{num(b.count)}</td>
            <td class="bar-cell"><Bar value={b.percentage} max={100} label={`${b.percentage} %`} /> <span class="small">{num(b.percentage)} %</span></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ElementsTable({ elements, selected, onOpen }: { elements: ElementRow[]; selected: string | null; onOpen(selector: string): void }) {
  if (elements.length === 0) return <Empty>No element drew friction in this period.</Empty>;
  const max = Math.max(...elements.map((e) => e.signal_count));
  return (
    <div class="table-scroll">
      <table class="elements">
        <thead><tr><th scope="col">Element</th><th scope="col">Friction signals</th><th scope="col">Dominant signal</th><th scope="col" class="num">Users affected</th><th scope="col">What to do</th></tr></thead>
        <tbody>
          {elements.map((e) => (
            <tr key={e.element_selector} class={selected === e.element_selector ? 'selected' : undefined}>
              <th scope="row">
                <button type="button" class="link" onClick={() => onOpen(e.element_selector)} aria-label={`Open the element heatmap of ${e.element_selector}`}>
                  <code>{e.element_selector}</code>
                </button>
                {e.label && <div class="muted small">“{e.label}”</div>}
              </th>
              <td class="bar-cell"><Bar value={e.signal_count} max={max} label={`${e.signal_count} signals`} colour="var(--accent-warm)" /> <span class="small">{num(e.signal_count)}</span></td>
              <td><SignalChip type={e.dominant_signal} /></td>
              <td class="num">{num(e.affected_users)}</td>
              <td class="small">{e.recommendation ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SelectedElement({ site, page, selector, device, range }: { site: string; page: string; selector: string; device: DeviceClass; range: Range }) {
  const heat = useApi(() => api.get<ElementHeatmapData>('/query/element-heatmap', { site_id: site, page, selector, device, ...rangeQuery(range) }), [site, page, selector, device, range]);
  const section = useRef<HTMLElement>(null);
  useEffect(() => section.current?.scrollIntoView({ block: 'nearest' }), [selector]);
  return (
    <section class="card" aria-labelledby="el-heat" id="element-heatmap" ref={section}>
      <h2 id="el-heat">Element heatmap</h2>
      <Async load={heat} what="the element heatmap">
        {(h) => h.count === 0 ? <Empty>No presses on <code>{selector}</code> for this device class and period.</Empty>
          : <ElementHeatmap page={page} selector={selector} device={VIEWPORTS[device].name.toLowerCase()} points={h.points} />}
      </Async>
    </section>
  );
}

/**
 * The heatmap over the page's latest snapshot for the device class, or the viewport frame
 * where there is none yet (404) or it cannot be drawn. Snapshots come with clips, so a site
 * with clips off is not asked for one (each 404 would be logged by the browser).
 */
function Heatmap({ site, page, device, range, points, selected, onSelect }: {
  site: string; page: string; device: DeviceClass; range: Range; points: PageHeatmapData['points']; selected: string | null; onSelect(selector: string): void;
}) {
  const clipsOn = useClipsOn(site, true);
  const wanted = clipsOn.state === 'ok' && clipsOn.data === true;
  const snapshot = useApi(() => (wanted ? api.get<PageSnapshot>('/query/page-snapshot', { site_id: site, page, device }) : Promise.resolve(null))
    .catch((err: unknown) => { if (err instanceof ApiError && err.code === 'not_found') return null; throw err; }), [site, page, device, wanted]);
  const [unusable, setUnusable] = useState(false);
  useEffect(() => setUnusable(false), [snapshot.data]);
  if (clipsOn.state === 'loading' || snapshot.state === 'loading') return <Async load={snapshot} what="the page snapshot">{() => null}</Async>;
  const frame = <PageHeatmap page={page} device={device} points={points} selected={selected} onSelect={onSelect} />;
  if (snapshot.state === 'error' || !snapshot.data || unusable) {
    const why = snapshot.state === 'error' || unusable ? 'The page\'s snapshot could not be drawn'
      : wanted ? 'No snapshot of this page for this device class yet (with clips on, the SDK sends one a day)'
        : 'No snapshot of this page: snapshots come with clips, which are off for this site (Settings › SDK config)';
    return (
      <>
        {frame}
        <p class="muted small" data-testid="no-snapshot">{why}, so the presses are shown in a frame of the viewport.</p>
      </>
    );
  }
  return <SnapshotHeatmap site={site} page={page} device={device} range={range} points={points} snapshot={snapshot.data} selected={selected} onSelect={onSelect} onUnusable={() => setUnusable(true)} />;
}

const RANGE_DAYS: Record<Range, number> = { '30d': 30, '7d': 7, '24h': 1 };

function ScoreBlock({ detail }: { detail: PageDetail }) {
  const sc = detail.score;
  if (!sc) return <Empty>This page has been visited but not scored yet: it is scored once a pipeline cycle sees enough active users on it.</Empty>;
  return (
    <>
      <p class="big"><Score value={sc.score} /> <span class="muted small">of 100</span></p>
      <p><Badge kind="duck" value={sc.duck_state} /> · <Trend trend={sc.trend} /></p>
      <p class="muted small">{num(sc.active_users)} active users, {num(sc.affected_users)} of them affected, in <Window from={sc.window_start} to={sc.window_end} /> (the latest pipeline cycle, <Time iso={sc.computed_at} relative />).</p>
      <p class="muted small">The period does not change the score: it is always the latest cycle's.</p>
    </>
  );
}

/**
 * The page screen asks `/query/scores` first: only a scored page is asked for in detail, since
 * `/query/page` answers 404 for a page with no data (and the browser logs every 404). A site
 * with no scored page shows one plain empty state; a page not scored (yet) shows its heatmap,
 * elements and issues, which answer empty rather than 404, and says the score is not there.
 */
export function PageScreen({ site, page }: { site: string; page: string }) {
  const scores = useApi(() => api.get<Scores>('/query/scores', { site_id: site }), [site]);
  if (scores.state !== 'ok') return <Async load={scores} what="the site's pages">{() => null}</Async>;
  const pages = scores.data.site.pages;
  if (pages.length === 0) {
    return (
      <div class="screen page-detail">
        <p class="crumbs"><a href="#/">Overview</a> › Page</p>
        <h1><code>{page}</code></h1>
        <p class="state empty" data-testid="page-no-data">No page of this site has data yet: nothing has been scored. <a href="#/">The overview shows how to install the SDK</a> and tells you when the first event arrives.</p>
      </div>
    );
  }
  return <PageBody site={site} page={page} scored={pages.some((p) => p.page === page)} />;
}

function PageBody({ site, page, scored }: { site: string; page: string; scored: boolean }) {
  const q = route.value.query;
  const device = asDevice(q.get('device'));
  const range = asRange(q.get('range'));
  const selected = q.get('el');
  const go = (next: { device?: DeviceClass; range?: Range; el?: string | null }) =>
    navigate(href('page', { path: page, device: next.device ?? device, range: next.range ?? range, el: next.el === undefined ? selected : next.el }));

  const detail = useApi(() => (scored ? api.get<PageDetail>('/query/page', { site_id: site, page }) : Promise.resolve(null)), [site, page, scored]);
  const filters = { site_id: site, page, device, ...rangeQuery(range) };
  const heat = useApi(() => api.get<PageHeatmapData>('/query/page-heatmap', filters), [site, page, device, range]);
  const elements = useApi(() => api.get<ElementList>('/query/elements', filters), [site, page, device, range]);
  const history = useApi(() => api.get<Trends>('/query/trends', { site_id: site, page, days: RANGE_DAYS[range] }), [site, page, range]);
  const issues = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, page, attention: true, limit: 50 }), [site, page]);
  const currency = useCurrency(site);
  const open = (selector: string) => go({ el: selector });
  const period = RANGES[range].toLowerCase();

  return (
    <div class="screen page-detail">
      <p class="crumbs"><a href="#/">Overview</a> › Page</p>
      <h1><code>{page}</code></h1>
      <div class="card toolbar" role="group" aria-label="Device class and period">
        <div class="filters">
          <DevicePicker device={device} onChange={(d) => go({ device: d })} />
          <RangePicker range={range} onChange={(r) => go({ range: r })} />
        </div>
        <p class="muted small">The period ({period}) applies to the score history, the heatmaps and the elements; the device class to the heatmaps and the elements. The score and its breakdown are the latest pipeline cycle's window, and issues count users over the last 24 hours and 7 days, whatever the period.</p>
      </div>
      <Async load={detail} what="this page">
        {(d) => !d ? (
          <section class="card" aria-labelledby="pg-score">
            <h2 id="pg-score">Score</h2>
            <p class="state empty" data-testid="page-not-scored">No score for this page yet: either no visitor has reached it since the SDK was installed, or a pipeline cycle has not yet seen enough active users on it. Its heatmap, elements and issues below fill in as signals arrive. <a href="#/">Back to the overview</a>.</p>
          </section>
        ) : (
          <div class="grid two">
            <section class="card hero" aria-labelledby="pg-score">
              <h2 id="pg-score">Score</h2>
              <ScoreBlock detail={d} />
            </section>
            <section class="card" aria-labelledby="pg-breakdown">
              <h2 id="pg-breakdown">Breakdown by signal</h2>
              {d.score && <p class="muted small">Signals in the score's window, <Window from={d.score.window_start} to={d.score.window_end} />.</p>}
              <Breakdown detail={d} />
            </section>
          </div>
        )}
      </Async>
      <section class="card" aria-labelledby="pg-history">
        <h2 id="pg-history">Score, {period}</h2>
        <Async load={history} what="the score history">
          {(h) => <ScoreChart history={h.history} days={RANGE_DAYS[range]} label={`Score of ${page}, ${period}`}
            markers={[...(detail.data?.recent_deploys ?? []).map((x) => ({ at: x.deployed_at, label: x.score_scale === 'legacy' ? `${x.version} (old scale)` : x.version, kind: 'deploy' as const, id: x.id })), ...h.annotations.map((a) => ({ at: a.created_at, label: a.message, kind: 'annotation' as const }))]} />}
        </Async>
      </section>

      <section class="card" aria-labelledby="pg-heat">
        <h2 id="pg-heat">Where people struggled</h2>
        <p class="muted small">{RANGES[range]}, {VIEWPORTS[device].name.toLowerCase()}. Drawn over the page's latest snapshot for the device class where there is one (an element's presses inside its box), otherwise in a frame of the viewport, where presses landed in the visible window. Choose a box to see that element up close.</p>
        <Async load={heat} what="the page heatmap">
          {(h) => h.count === 0
            ? <Empty>No rage clicks, dead clicks or disabled-control presses on this page for {VIEWPORTS[device].name.toLowerCase()} in this period.</Empty>
            : <Heatmap site={site} page={page} device={device} range={range} points={h.points} selected={selected} onSelect={open} />}
        </Async>
      </section>

      {selected && <SelectedElement site={site} page={page} selector={selected} device={device} range={range} />}

      <section class="card" aria-labelledby="pg-elements">
        <h2 id="pg-elements">Elements</h2>
        <Async load={elements} what="elements">
          {(e) => (
            <>
              <p class="muted small" data-testid="elements-window">
                Friction signals and affected users on {VIEWPORTS[device].name.toLowerCase()} in {e.elements[0] ? <Window from={e.elements[0].window_from} to={e.elements[0].window_to} /> : period}.
              </p>
              <ElementsTable elements={e.elements} selected={selected} onOpen={open} />
            </>
          )}
        </Async>
      </section>

      <section class="card" aria-labelledby="pg-issues">
        <h2 id="pg-issues">Issues needing attention on this page</h2>
        <p class="small"><a id="pg-sessions" href={href('sessions', { page, range: '30d' })}>Sessions that viewed this page, most friction first</a></p>
        <Async load={issues} what="issues">
          {(l) => l.issues.length === 0 ? <Empty>No issue on this page is {ATTENTION_WORDS}.</Empty> : (
            <>
              <p class="muted small">{num(l.total)} issue{l.total === 1 ? '' : 's'} {ATTENTION_WORDS}, in priority order; users in the last 24 h and 7 days, whatever the period.</p>
              <IssueRows issues={l.issues} currency={currency} />
              <IssueColumnsNote />
            </>
          )}
        </Async>
      </section>

      <Async load={detail} what="deploys, budgets, alerts and annotations">
        {(d) => d && (
          <>
            <div class="grid two">
              <section class="card" aria-labelledby="pg-deploys">
                <h2 id="pg-deploys">Recent deploys</h2>
                <p class="muted small">The site's 5 latest deploys, with the site's overall score before and after each.</p>
                {d.recent_deploys.length === 0 ? <Empty>No deploys recorded.</Empty> : (
                  <ul class="plain-list">{d.recent_deploys.map((x) => <li key={x.id}><strong>{x.version}</strong> · <Time iso={x.deployed_at} relative /> · <DeployChange deploy={x} /></li>)}</ul>
                )}
              </section>
              <section class="card" aria-labelledby="pg-budgets">
                <h2 id="pg-budgets">Budgets</h2>
                {d.budgets.length === 0 ? <Empty>No confusion budget covers this page. Admins add one as an alert rule of type budget.</Empty> : (
                  <ul class="plain-list">
                    {d.budgets.map((b) => (
                      <li key={b.rule_id}>
                        <strong>{b.name}</strong>: target score {num(b.target)}, the current {words(b.period)} period, <Badge kind="status" value={b.status} />
                        <Bar value={b.consumed_percent} max={100} label={`${b.consumed_percent} % consumed`} colour={b.consumed_percent >= 100 ? 'var(--bad)' : 'var(--accent)'} />
                        <span class="small">{percent(b.consumed_percent / 100)} of the budget used · {num(b.minutes_above)} min above target</span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </div>
            <div class="grid two">
              <section class="card" aria-labelledby="pg-alerts">
                <h2 id="pg-alerts">Active alerts</h2>
                <AlertList alerts={d.active_alerts} />
              </section>
              <section class="card" aria-labelledby="pg-notes">
                <h2 id="pg-notes">Annotations</h2>
                {d.annotations.length === 0 ? <Empty>No annotations in the last 30 days.</Empty> : (
                  <ul class="plain-list">{d.annotations.map((a) => <li key={a.id}><Time iso={a.created_at} short /> · {a.message}</li>)}</ul>
                )}
              </section>
            </div>
          </>
        )}
      </Async>
    </div>
  );
}
