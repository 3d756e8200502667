// Alerts: by status, with acknowledge / investigating / resolve (with a reason) for members
// and up, and each alert's timeline.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import { canTriage } from '../state/session.ts';
import type { Alert, AlertDetail, AlertList as AlertPage, AlertStatus, RevenueAtRisk } from '../api/types.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../components/async.tsx';
import { Badge, Time } from '../components/bits.tsx';
import { money, num, words } from '../lib/format.ts';

const TABS: [string, string][] = [['fired', 'Firing'], ['acknowledged', 'Acknowledged'], ['investigating', 'Investigating'], ['resolved', 'Resolved'], ['any', 'All']];
const MOVES: [Exclude<AlertStatus, 'fired'>, string][] = [['acknowledged', 'Acknowledge'], ['investigating', 'Investigating'], ['resolved', 'Resolve…']];

/** The status buttons of one alert; resolving asks for a reason first. */
function AlertActions({ site, alert, onDone }: { site: string; alert: Alert; onDone(): void }) {
  const action = useAction();
  const [resolving, setResolving] = useState(false);
  const [reason, setReason] = useState('');
  if (!canTriage.value) return null;
  const move = (status: AlertStatus, body: Record<string, unknown> = {}) =>
    action.run(() => api.patch(`/manage/alerts/${alert.id}`, { status, ...body }, { site_id: site }), `Alert ${words(status)}.`).then((ok) => { if (ok) { setResolving(false); onDone(); } });
  return (
    <div class="alert-actions">
      <div class="actions" role="group" aria-label={`Change the status of ${alert.rule_name ?? 'this alert'}`}>
        {MOVES.filter(([s]) => s !== alert.status).map(([s, text]) => (
          <button key={s} type="button" data-status={s} disabled={action.busy} aria-expanded={s === 'resolved' ? resolving : undefined}
            onClick={() => (s === 'resolved' ? setResolving(!resolving) : move(s))}>{text}</button>
        ))}
      </div>
      {resolving && (
        <form class="note-form" onSubmit={(e) => { e.preventDefault(); void move('resolved', reason.trim() ? { resolved_reason: reason.trim() } : {}); }}>
          <label for={`reason-${alert.id}`}>Why is it resolved? (optional)</label>
          <textarea id={`reason-${alert.id}`} rows={2} maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          <button type="submit" disabled={action.busy}>Resolve</button>
        </form>
      )}
      <ActionOutcome action={action} what="change the alert" />
    </div>
  );
}


/**
 * What a revenue alert's amount is made of: the pages and issues whose estimates add up to the
 * site's revenue at risk (/query/revenue), as they stand now (the alert fired on the amount of
 * its cycle), largest first.
 */
function RevenueBehind({ site }: { site: string }) {
  const revenue = useApi(() => api.get<RevenueAtRisk>('/query/revenue', { site_id: site }), [site]);
  return (
    <section class="card" aria-labelledby="al-revenue">
      <h2 id="al-revenue">What makes up the amount</h2>
      <Async load={revenue} what="the revenue at risk">
        {(r) => {
          const counted = r.issues.filter((i) => i.monthly_revenue_at_risk_cents !== null && i.monthly_revenue_at_risk_cents > 0)
            .sort((a, b) => b.monthly_revenue_at_risk_cents! - a.monthly_revenue_at_risk_cents!);
          if (!r.tracking || counted.length === 0) return <Empty>{r.message ?? 'No issue carries an estimate of revenue at risk now.'}</Empty>;
          const pages = new Map<string, number>();
          for (const i of counted) pages.set(i.page, (pages.get(i.page) ?? 0) + i.monthly_revenue_at_risk_cents!);
          return (
            <>
              <p class="muted">Now {money(r.total_monthly_revenue_at_risk_cents, r.currency)} a month at risk, from these issues (estimates as of the latest cycle).</p>
              <h3>By page</h3>
              <ul class="plain-list revenue-pages">
                {[...pages].sort((a, b) => b[1] - a[1]).map(([page, cents]) => <li key={page}><a href={href('page', { path: page })}><code>{page}</code></a> · {money(cents, r.currency)} a month</li>)}
              </ul>
              <h3>By issue</h3>
              <ul class="plain-list revenue-issues">
                {counted.map((i) => <li key={i.issue_id}><a href={href('issues', i.issue_id)}>{i.title}</a> · {money(i.monthly_revenue_at_risk_cents, r.currency)} a month</li>)}
              </ul>
            </>
          );
        }}
      </Async>
    </section>
  );
}

function AlertView({ site, id }: { site: string; id: string }) {
  const alert = useApi(() => api.get<AlertDetail>(`/query/alerts/${id}`, { site_id: site }), [site, id]);
  return (
    <Async load={alert} what="this alert">
      {(a) => (
        <>
          <h1>{a.rule_name ?? words(a.trigger_type)}</h1>
          <p class="meta"><Badge kind="severity" value={a.severity} /> <Badge kind="status" value={a.status} /> · {words(a.trigger_type)}{a.page && <> on <a href={href('page', { path: a.page })}><code>{a.page}</code></a></>} · fired <Time iso={a.fired_at} /></p>
          <p>{a.message}</p>
          {a.condition_value != null && <p class="muted">Measured {num(a.condition_value, 1)} against a threshold of {num(a.threshold, 1)}.</p>}
          {a.resolved_reason && <p>Resolved because: {a.resolved_reason}</p>}
          <AlertActions site={site} alert={a} onDone={alert.reload} />
          {a.trigger_type === 'revenue_threshold' && <RevenueBehind site={site} />}
          <section class="card" aria-labelledby="al-timeline">
            <h2 id="al-timeline">Timeline</h2>
            {a.timeline.length === 0 ? <Empty>No entries.</Empty> : (
              <ol class="timeline">{a.timeline.map((t) => <li key={t.id}><Time iso={t.created_at} short /> · <strong>{words(t.kind)}</strong>: {t.message}</li>)}</ol>
            )}
          </section>
        </>
      )}
    </Async>
  );
}

function AlertList({ site, status }: { site: string; status: string }) {
  const alerts = useApi(() => api.get<AlertPage>('/query/alerts', { site_id: site, status: status === 'any' ? undefined : status, limit: 200 }), [site, status]);
  return (
    <>
      <h1>Alerts</h1>
      <div class="segmented" role="group" aria-label="Alert status">
        {TABS.map(([s, text]) => <button key={s} type="button" aria-pressed={status === s} onClick={() => navigate(href('alerts', { status: s }))}>{text}</button>)}
      </div>
      <p><a href={href('settings', 'rules')}>Alert rules</a></p>
      <Async load={alerts} what="alerts">
        {(l) => l.alerts.length === 0 ? <Empty>No {status === 'any' ? '' : `${words(status)} `}alerts.</Empty> : (
          <ul class="alerts">
            {l.alerts.map((a) => (
              <li key={a.id} class="card" data-alert={a.id}>
                <div><Badge kind="severity" value={a.severity} /> <a href={href('alerts', a.id)}><strong>{a.rule_name ?? words(a.trigger_type)}</strong></a> · <Badge kind="status" value={a.status} /> · <Time iso={a.fired_at} relative /></div>
                <p>{a.message}</p>
                <AlertActions site={site} alert={a} onDone={alerts.reload} />
              </li>
            ))}
          </ul>
        )}
      </Async>
    </>
  );
}

export function AlertsScreen({ site, id, query }: { site: string; id: string | null; query: URLSearchParams }) {
  return (
    <div class="screen alerts-screen">
      {id ? <><p class="crumbs"><a href={href('alerts')}>Alerts</a> › Alert</p><AlertView site={site} id={id} /></> : <AlertList site={site} status={query.get('status') ?? 'fired'} />}
    </div>
  );
}
