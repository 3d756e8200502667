// Overview: the site score with its duck, the score over 7/30/90 days with deploys and
// annotations, pages ranked by score, open issues by severity, active alerts, latest deploys.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href } from '../state/router.ts';
import type { Alert, Deploy, IssueList, Scores, Severity, Trends } from '../state/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, Score, SignalChip, Time, Trend } from '../components/bits.tsx';
import { Bar } from '../components/bar.tsx';
import { ScoreChart, type Marker } from '../components/score-chart.tsx';
import { DeployChange } from './deploys.tsx';
import { num } from '../lib/format.ts';

export const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low'];
const PERIODS = [7, 30, 90] as const;

export function PeriodPicker({ days, onChange, label }: { days: number; onChange(d: number): void; label: string }) {
  return (
    <div class="segmented" role="group" aria-label={label}>
      {PERIODS.map((d) => <button key={d} type="button" aria-pressed={days === d} onClick={() => onChange(d)}>{d} days</button>)}
    </div>
  );
}

export const deployMarkers = (deploys: Deploy[]): Marker[] => deploys.map((d) => ({ at: d.deployed_at, label: d.version, kind: 'deploy' }));
export const annotationMarkers = (trends: Trends): Marker[] => trends.annotations.map((a) => ({ at: a.created_at, label: a.message, kind: 'annotation' }));

function ScoreCard({ scores }: { scores: Scores }) {
  useEffect(() => { performance.mark('mallard:overview-rendered'); }, []);
  const { site } = scores;
  return (
    <section class="card hero" aria-labelledby="site-score">
      <h2 id="site-score">Site score</h2>
      <p class="big"><Score value={site.overall_score} /> <span class="muted small">of 100 (higher is more confusing)</span></p>
      <p><Badge kind="duck" value={scores.duck_state} /> {scores.duck_label ?? ''} · <Trend trend={site.overall_trend} /></p>
      <p class="muted">{num(site.total_active_users)} active users, {num(site.total_affected_users)} affected{scores.as_of && <> · as of <Time iso={scores.as_of} /></>}</p>
    </section>
  );
}

function PagesTable({ scores }: { scores: Scores }) {
  const pages = scores.site.pages;
  if (pages.length === 0) return <Empty>No pages scored yet. Add the SDK to your site, then scores appear after the next pipeline cycle.</Empty>;
  return (
    <div class="table-scroll">
      <table class="pages" data-testid="pages">
        <caption>Pages ranked by score, most confusing first</caption>
        <thead><tr><th scope="col">Page</th><th scope="col" class="num">Score</th><th scope="col">Trend</th><th scope="col">Dominant signal</th><th scope="col" class="num">Active users</th></tr></thead>
        <tbody>
          {pages.map((p) => (
            <tr key={p.page} data-page={p.page}>
              <th scope="row"><a href={href('page', { path: p.page })}>{p.page}</a>{p.stale && <span class="muted small"> (stale)</span>}</th>
              <td class="num"><Score value={p.score} /></td>
              <td><Trend trend={p.trend} /></td>
              <td>{p.dominant_signal ? <SignalChip type={p.dominant_signal} /> : <span class="muted">none</span>}</td>
              <td class="num">{num(p.active_users)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function IssuesBySeverity({ list }: { list: IssueList }) {
  const counts = SEVERITIES.map((s) => list.issues.filter((i) => i.severity === s).length);
  const max = Math.max(1, ...counts);
  if (list.total === 0) return <Empty>No open issues. Nothing is confusing enough users to cluster into one.</Empty>;
  return (
    <table class="severity-bars">
      <caption>{num(list.total)} open issue{list.total === 1 ? '' : 's'}</caption>
      <tbody>
        {SEVERITIES.map((s, i) => (
          <tr key={s}>
            <th scope="row"><a href={href('issues', { status: 'open', severity: s })}><Badge kind="severity" value={s} /></a></th>
            <td class="bar-cell"><Bar value={counts[i]} max={max} label={`${counts[i]} ${s}`} colour={`var(--sev-${s})`} /></td>
            <td class="num">{num(counts[i])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AlertList({ alerts }: { alerts: Alert[] }) {
  if (alerts.length === 0) return <Empty>No active alerts.</Empty>;
  return (
    <ul class="plain-list">
      {alerts.map((a) => (
        <li key={a.id}>
          <Badge kind="severity" value={a.severity} /> <a href={href('alerts', a.id)}>{a.rule_name ?? a.trigger_type}</a>
          {a.page && <> on <code>{a.page}</code></>} · <Badge kind="status" value={a.status} /> · <Time iso={a.fired_at} relative />
        </li>
      ))}
    </ul>
  );
}

export function Overview({ site }: { site: string }) {
  const [days, setDays] = useState(7);
  const scores = useApi(() => api.get<Scores>('/query/scores', { site_id: site }), [site]);
  const trends = useApi(() => api.get<Trends>('/query/trends', { site_id: site, days }), [site, days]);
  const deploys = useApi(() => api.get<{ deploys: Deploy[] }>('/query/deploys', { site_id: site, limit: 50 }), [site]);
  const issues = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, status: 'open', limit: 200 }), [site]);
  const alerts = useApi(() => api.get<{ alerts: Alert[] }>('/query/alerts', { site_id: site, limit: 200 }), [site]);

  return (
    <div class="screen overview">
      <h1>Overview</h1>
      <div class="grid two">
        <Async load={scores} what="the site score">{(s) => <ScoreCard scores={s} />}</Async>
        <section class="card" aria-labelledby="ov-issues">
          <h2 id="ov-issues">Open issues by severity</h2>
          <Async load={issues} what="open issues">{(list) => <IssuesBySeverity list={list} />}</Async>
        </section>
      </div>
      <section class="card" aria-labelledby="ov-chart">
        <div class="card-head">
          <h2 id="ov-chart">Site score over {days} days</h2>
          <PeriodPicker days={days} onChange={setDays} label="Chart period" />
        </div>
        <Async load={trends} what="the score history">
          {(t) => <ScoreChart history={t.history} days={days} label={`Site score over ${days} days`}
            markers={[...deployMarkers(deploys.data?.deploys ?? []), ...annotationMarkers(t)]} />}
        </Async>
      </section>
      <section class="card" aria-labelledby="ov-pages">
        <h2 id="ov-pages">Pages</h2>
        <Async load={scores} what="pages">{(s) => <PagesTable scores={s} />}</Async>
      </section>
      <div class="grid two">
        <section class="card" aria-labelledby="ov-alerts">
          <h2 id="ov-alerts">Active alerts</h2>
          <Async load={alerts} what="alerts">{(a) => <AlertList alerts={a.alerts.filter((x) => x.status !== 'resolved').slice(0, 6)} />}</Async>
          <p><a href={href('alerts')}>All alerts</a></p>
        </section>
        <section class="card" aria-labelledby="ov-deploys">
          <h2 id="ov-deploys">Latest deploys</h2>
          <Async load={deploys} what="deploys">
            {(d) => d.deploys.length === 0 ? <Empty>No deploys recorded. Record them from CI with POST /v1/manage/deploys.</Empty> : (
              <ul class="plain-list">
                {d.deploys.slice(0, 5).map((x) => <li key={x.id}><strong>{x.version}</strong> · <Time iso={x.deployed_at} relative /> · <DeployChange deploy={x} /></li>)}
              </ul>
            )}
          </Async>
          <p><a href={href('deploys')}>All deploys</a></p>
        </section>
      </div>
    </div>
  );
}
