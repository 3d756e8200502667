// Overview: the site's state with its reason (the API's headline), the site score, the issues
// needing attention and what to fix first (the API's priority order), the score over 7/30/90
// days with deploys and annotations, pages ranked by score, active alerts, latest deploys. A site
// with no data yet shows how to install the SDK instead.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href } from '../state/router.ts';
import { rememberCurrency } from '../state/currency.ts';
import type { Alert, AlertList as AlertPage, Deploy, DeployList, IssueList, Recommendations, Scores, Severity, Trends } from '../api/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, Priority, Score, SignalChip, Time, Trend, Window } from '../components/bits.tsx';
import { InstallSnippet, LiveCheck, RecordDeploys, SetupChecklist, useLiveCheck, type LiveState } from '../components/onboarding.tsx';
import { Bar } from '../components/bar.tsx';
import { ScoreChart, type Marker } from '../components/score-chart.tsx';
import { DeployChange } from './deploys.tsx';
import { ATTENTION_STATUSES, ATTENTION_WORDS } from '../lib/issue-query.ts';
import { money, num, words } from '../lib/format.ts';

export const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low'];
const PERIODS = [7, 30, 90] as const;

export function PeriodPicker({ days, onChange, label }: { days: number; onChange(d: number): void; label: string }) {
  return (
    <div class="segmented" role="group" aria-label={label}>
      {PERIODS.map((d) => <button key={d} type="button" aria-pressed={days === d} onClick={() => onChange(d)}>{d} days</button>)}
    </div>
  );
}

export const deployMarkers = (deploys: Deploy[]): Marker[] => deploys.map((d) => ({ at: d.deployed_at, label: d.score_scale === 'legacy' ? `${d.version} (old scale)` : d.version, kind: 'deploy', id: d.id }));
export const annotationMarkers = (trends: Trends): Marker[] => trends.annotations.map((a) => ({ at: a.created_at, label: a.message, kind: 'annotation' }));

const REASONS: Record<Scores['duck_reason'], string> = {
  score: 'set by the overall score',
  alert: 'set by an active alert',
  page: 'set by a page at flustered or worse',
};

/** The site's state: the duck and its label, why, and the API's headline, the sentence every face shows. */
function StateCard({ scores }: { scores: Scores }) {
  useEffect(() => { performance.mark('mallard:overview-rendered'); }, []);
  const { site } = scores;
  return (
    <section class="card hero" aria-labelledby="site-state">
      <h2 id="site-state">Site state</h2>
      <p class="state-line"><Badge kind="duck" value={scores.duck_state} /> <strong>{scores.duck_label}</strong> <span class="muted">({REASONS[scores.duck_reason] ?? scores.duck_reason})</span></p>
      <p class="headline" data-testid="headline">{scores.headline}</p>
      <p class="big"><Score value={site.overall_score} /> <span class="muted small">of 100, the overall score (higher is more confusing)</span></p>
      <p><Trend trend={site.overall_trend} /></p>
      <p class="muted small">{num(site.total_active_users)} active users, {num(site.total_affected_users)} of them affected, in <Window from={site.window_from} to={site.window_to} />{scores.as_of && <> · latest cycle <Time iso={scores.as_of} relative /></>}</p>
    </section>
  );
}

/** A site with no scored page: how to install the SDK and whether it sends yet, never "everything normal". */
function NoDataYet({ site, scores, live }: { site: string; scores: Scores; live: LiveState | null }) {
  useEffect(() => { performance.mark('mallard:overview-rendered'); }, []);
  return (
    <section class="card hero no-data" aria-labelledby="no-data" data-testid="no-data">
      <h2 id="no-data">Site state</h2>
      <p class="headline" data-testid="headline">{scores.headline}</p>
      <InstallSnippet site={site} />
      <LiveCheck state={live} />
    </section>
  );
}

function PagesTable({ scores }: { scores: Scores }) {
  const pages = scores.site.pages;
  if (pages.length === 0) return <Empty>No pages scored yet. Add the SDK to your site, then scores appear after the next pipeline cycle.</Empty>;
  return (
    <div class="table-scroll">
      <table class="pages" data-testid="pages">
        <caption>Pages ranked by score, most confusing first. Each score and its users are the page's latest cycle window (hover the users to see it).</caption>
        <thead><tr><th scope="col">Page</th><th scope="col" class="num">Score</th><th scope="col">Trend</th><th scope="col">Dominant signal</th><th scope="col" class="num">Active users</th></tr></thead>
        <tbody>
          {pages.map((p) => (
            <tr key={p.page} data-page={p.page}>
              <th scope="row"><a href={href('page', { path: p.page })}>{p.page}</a>{p.stale && <span class="muted small"> (stale)</span>}</th>
              <td class="num"><Score value={p.score} /></td>
              <td><Trend trend={p.trend} /></td>
              <td>{p.dominant_signal ? <SignalChip type={p.dominant_signal} /> : <span class="muted">none</span>}</td>
              <td class="num" title={`${p.affected_users} affected; window ${p.window_start} to ${p.window_end} (UTC)`}>{num(p.active_users)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every unresolved issue (the API's attention=true and its total), by severity and by status. */
function NeedsAttention({ list }: { list: IssueList }) {
  if (list.total === 0) return <Empty>No issue needs attention. Nothing is confusing enough users to cluster into one.</Empty>;
  const counts = SEVERITIES.map((s) => list.issues.filter((i) => i.severity === s).length);
  const max = Math.max(1, ...counts);
  const byStatus = ATTENTION_STATUSES.map((s) => [s, list.issues.filter((i) => i.status === s).length] as const).filter(([, n]) => n > 0);
  return (
    <>
      <p class="count-line"><strong class="big-count" data-testid="attention-count">{num(list.total)}</strong> issue{list.total === 1 ? '' : 's'} {ATTENTION_WORDS}</p>
      <p class="muted small" data-testid="attention-statuses">{byStatus.map(([s, n]) => `${num(n)} ${words(s)}`).join(' · ')}{list.total > list.issues.length ? ` (of the first ${num(list.issues.length)})` : ''}</p>
      <table class="severity-bars">
        <caption class="sr-only">Issues needing attention by severity</caption>
        <tbody>
          {SEVERITIES.map((s, i) => (
            <tr key={s}>
              <th scope="row"><a href={href('issues', { severity: s })}><Badge kind="severity" value={s} /></a></th>
              <td class="bar-cell"><Bar value={counts[i]} max={max} label={`${counts[i]} ${s}`} colour={`var(--sev-${s})`} /></td>
              <td class="num">{num(counts[i])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** What to fix first: the API's recommendations, in its priority order, each number labelled. */
function FixFirst({ data }: { data: Recommendations }) {
  if (data.recommendations.length === 0) return <Empty>Nothing to fix: no issue needs attention.</Empty>;
  return (
    <ol class="fix-first" data-testid="fix-first">
      {data.recommendations.map((r) => (
        <li key={r.issue_id} data-issue={r.issue_id}>
          <div><a href={href('issues', r.issue_id)}>{r.title}</a> <Badge kind="severity" value={r.severity} /> <Badge kind="status" value={r.status} /></div>
          <div class="small">
            <strong><Priority value={r.priority} reason={r.priority_reason} /></strong>
            {' · '}{num(r.affected_users)} user{r.affected_users === 1 ? '' : 's'} in 24 h
            {r.monthly_revenue_at_risk_cents != null && <> · {money(r.monthly_revenue_at_risk_cents, data.currency)}/mo at risk</>}
          </div>
          <div class="muted small reason">Why: {r.priority_reason}</div>
          <div class="small">{r.recommendation}</div>
        </li>
      ))}
    </ol>
  );
}

/**
 * An alert as this list reads it: /query/alerts names the rule; the page's active alerts
 * (/query/page) do not, and show the trigger type instead.
 */
type ListedAlert = Pick<Alert, 'id' | 'severity' | 'trigger_type' | 'page' | 'status' | 'fired_at'> & { rule_name?: string | null };

export function AlertList({ alerts }: { alerts: ListedAlert[] }) {
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
  const deploys = useApi(() => api.get<DeployList>('/query/deploys', { site_id: site, limit: 50 }), [site]);
  const issues = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, attention: true, limit: 200 }), [site]);
  const alerts = useApi(() => api.get<AlertPage>('/query/alerts', { site_id: site, limit: 200 }), [site]);
  const fixes = useApi(() => api.get<Recommendations>('/query/recommendations', { site_id: site, limit: 5 }).then((r) => { rememberCurrency(site, r.currency); return r; }), [site]);
  const empty = scores.state === 'ok' && scores.data.site.pages.length === 0;
  const live = useLiveCheck(site, empty);

  const checklist = <SetupChecklist site={site} scores={scores.data ?? null} deploys={deploys.data?.deploys ?? null} live={live} />;

  // An empty site: the install snippet and the live check, not an empty chart, empty tables and "everything normal".
  if (empty) {
    return (
      <div class="screen overview">
        <h1>Overview</h1>
        <NoDataYet site={site} scores={scores.data} live={live} />
        {checklist}
      </div>
    );
  }

  return (
    <div class="screen overview">
      <h1>Overview</h1>
      {checklist}
      <div class="grid two">
        <Async load={scores} what="the site state">{(s) => <StateCard scores={s} />}</Async>
        <section class="card" aria-labelledby="ov-issues">
          <h2 id="ov-issues">Needs attention</h2>
          <Async load={issues} what="issues needing attention">{(list) => <NeedsAttention list={list} />}</Async>
          <p><a href={href('issues')}>All issues needing attention</a></p>
        </section>
      </div>
      <section class="card" aria-labelledby="ov-fix">
        <h2 id="ov-fix">What to fix first</h2>
        <p class="muted small">Issues needing attention in priority order (0 to 100: users affected in 7 days, severity, signal weight and revenue at risk), the same order as the issues list.</p>
        <Async load={fixes} what="what to fix first">{(f) => <FixFirst data={f} />}</Async>
      </section>
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
          <Async load={alerts} what="alerts">{(a) => {
            const active = a.alerts.filter((x) => x.status !== 'resolved');
            return (
              <>
                {active.length > 0 && <p class="muted small">{num(active.length)} active (fired, acknowledged or investigating){active.length > 6 ? '; the latest 6:' : ''}</p>}
                <AlertList alerts={active.slice(0, 6)} />
              </>
            );
          }}</Async>
          <p><a href={href('alerts')}>All alerts</a></p>
        </section>
        <section class="card" aria-labelledby="ov-deploys">
          <h2 id="ov-deploys">Latest deploys</h2>
          <Async load={deploys} what="deploys">
            {(d) => d.deploys.length === 0 ? <RecordDeploys /> : (
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
