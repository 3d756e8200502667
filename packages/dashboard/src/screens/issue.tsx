// Issue detail: status buttons for the moves allowed (every settable status but the current
// one; members and up), assignee, notes, evidence, the element heatmap, linked sessions,
// clips to watch (each opening at the signal's moment), verification history, deploy
// correlation and the ticket.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href } from '../state/router.ts';
import { canAdmin, canTriage } from '../state/session.ts';
import type { ElementHeatmap as ElementHeatmapData, IntegrationList, IssueDetail } from '../api/types.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../components/async.tsx';
import { Badge, Priority, SignalChip, Time } from '../components/bits.tsx';
import { useCurrency } from '../state/currency.ts';
import { ElementHeatmap } from '../components/element-heatmap.tsx';
import { ClipsBlock } from '../components/clips.tsx';
import { delta, moneyPerMonth, num, percent, words } from '../lib/format.ts';

const SETTABLE = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored'] as const;

function Triage({ site, issue, reload }: { site: string; issue: IssueDetail; reload(): void }) {
  const action = useAction();
  const [assignee, setAssignee] = useState(issue.assigned_to ?? '');
  const [note, setNote] = useState('');
  const patch = (body: Record<string, unknown>, done: string) =>
    action.run(() => api.patch(`/manage/issues/${issue.id}`, body, { site_id: site }), done).then((ok) => { if (ok) reload(); return ok; });

  if (!canTriage.value) return <p class="muted">You can read this issue; members and above change its status, assignee and notes.</p>;
  return (
    <>
      <div class="actions" role="group" aria-label="Change status">
        {SETTABLE.filter((s) => s !== issue.status).map((s) => (
          <button key={s} type="button" data-status={s} disabled={action.busy} onClick={() => patch({ status: s }, `Status changed to ${words(s)}.`)}>
            Mark {words(s)}
          </button>
        ))}
      </div>
      <form class="row-form" onSubmit={(e) => { e.preventDefault(); void patch({ assigned_to: assignee.trim() || null }, assignee.trim() ? `Assigned to ${assignee.trim()}.` : 'Unassigned.'); }}>
        <label for="assignee">Assignee</label>
        <input id="assignee" value={assignee} maxLength={254} placeholder="name or email" onInput={(e) => setAssignee(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy}>Save assignee</button>
      </form>
      <form class="note-form" onSubmit={(e) => { e.preventDefault(); if (note.trim()) void patch({ note: note.trim() }, 'Note added.').then((ok) => ok && setNote('')); }}>
        <label for="note">Add a note</label>
        <textarea id="note" rows={3} maxLength={5000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy || !note.trim()}>Add note</button>
      </form>
      <ActionOutcome action={action} what="update the issue" />
    </>
  );
}

const TRACKERS = { linear: 'Linear', github: 'GitHub' } as const;
type Tracker = keyof typeof TRACKERS;

/**
 * The ticket, or a way to make one: a button per connected tracker (Linear, GitHub), or,
 * with none connected, where to connect one. Never a button the API would refuse.
 */
function Ticket({ site, issue, reload }: { site: string; issue: IssueDetail; reload(): void }) {
  const action = useAction();
  const wanted = canTriage.value && !issue.ticket;
  const integrations = useApi(() => (wanted ? api.get<IntegrationList>('/manage/integrations', { site_id: site }) : Promise.resolve(null)), [site, wanted]);
  if (issue.ticket) return <p>Ticket: <a href={issue.ticket.url} target="_blank" rel="noreferrer noopener">{issue.ticket.url}</a> ({issue.ticket.provider})</p>;
  if (!canTriage.value) return <p class="muted">No ticket yet.</p>;
  const trackers = (integrations.data?.integrations ?? []).map((i) => i.provider).filter((p): p is Tracker => p in TRACKERS);
  return (
    <>
      <p class="muted">No ticket yet.</p>
      <Async load={integrations} what="the connected trackers">
        {() => trackers.length === 0 ? (
          <p class="state empty" data-testid="ticket-connect">
            To create a ticket from here, connect Linear or GitHub first:{' '}
            {canAdmin.value ? <a href={href('settings', 'integrations')}>connect one in Settings › Integrations</a> : <>an admin connects one in <a href={href('settings', 'integrations')}>Settings › Integrations</a></>}.
          </p>
        ) : (
          <div class="actions">
            {trackers.map((t) => (
              <button key={t} type="button" data-ticket={t} disabled={action.busy}
                onClick={() => action.run(() => api.post(`/manage/issues/${issue.id}/ticket`, { provider: t }, { site_id: site })).then((ok) => ok && reload())}>
                Create a {TRACKERS[t]} ticket
              </button>
            ))}
          </div>
        )}
      </Async>
      <ActionOutcome action={action} what="create the ticket" />
    </>
  );
}

/** Page-level signals (scrolling, reloads, slow loads) name no element, so they have no element heatmap. */
function IssueHeatmap({ site, issue }: { site: string; issue: IssueDetail }) {
  if (!issue.element_selector) return <Empty>This issue is about the whole page, not one element, so there is no element heatmap.</Empty>;
  return <ElementPresses site={site} issue={issue} />;
}

function ElementPresses({ site, issue }: { site: string; issue: IssueDetail }) {
  const heat = useApi(() => api.get<ElementHeatmapData>('/query/element-heatmap', { site_id: site, page: issue.page, selector: issue.element_selector }), [site, issue.id]);
  return (
    <Async load={heat} what="the element heatmap">
      {(h) => h.count === 0 ? <Empty>No presses recorded on this element in the last 30 days.</Empty>
        : <ElementHeatmap page={issue.page} selector={issue.element_selector} device="all device classes" points={h.points} highlight={issue.type} />}
    </Async>
  );
}

export function IssueScreen({ site, id }: { site: string; id: string }) {
  const issue = useApi(() => api.get<IssueDetail>(`/query/issues/${id}`, { site_id: site }), [site, id]);
  const currency = useCurrency(site);
  return (
    <div class="screen issue">
      <p class="crumbs"><a href={href('issues')}>Issues</a> › Issue</p>
      <Async load={issue} what="this issue">
        {(i) => (
          <>
            <h1>{i.title}</h1>
            <p class="meta">
              <Badge kind="severity" value={i.severity} /> <Badge kind="status" value={i.status} /> <SignalChip type={i.type} />
              {' '}on <a href={href('page', { path: i.page })}><code>{i.page}</code></a> · <code>{i.element_selector}</code>
            </p>
            <p class="priority-line"><strong><Priority value={i.priority} reason={i.priority_reason} /></strong> <span class="muted">({i.priority_reason})</span></p>
            <p class="muted">{num(i.signal_count)} signals since first seen · {num(i.session_count)} sessions and {num(i.user_count)} users in the last 24 h · {num(i.users_7d)} users in 7 days · revenue at risk {moneyPerMonth(i.revenue_at_risk_cents, currency)} · first seen <Time iso={i.first_seen_at} /> · last seen <Time iso={i.last_seen_at} /> · assigned to {i.assigned_to ?? 'nobody'}</p>
            <section class="card" aria-labelledby="is-triage">
              <h2 id="is-triage">Triage</h2>
              <Triage site={site} issue={i} reload={issue.reload} />
            </section>
            <div class="grid two">
              <section class="card" aria-labelledby="is-heat">
                <h2 id="is-heat">Where presses land on the element</h2>
                <IssueHeatmap site={site} issue={i} />
              </section>
              <section class="card" aria-labelledby="is-activity">
                <h2 id="is-activity">Notes and changes</h2>
                {i.activity.length === 0 ? <Empty>Nothing yet.</Empty> : (
                  <ol class="timeline">
                    {i.activity.map((a) => (
                      <li key={a.id}><Time iso={a.created_at} short /> · <strong>{words(a.kind)}</strong> by {a.actor}{a.to_status && <> → <Badge kind="status" value={a.to_status} /></>}{a.message && <div>{a.message}</div>}</li>
                    ))}
                  </ol>
                )}
              </section>
            </div>
            <section class="card" aria-labelledby="is-clips">
              <h2 id="is-clips">Clips</h2>
              <ClipsBlock site={site} query={{ issue_id: i.id }} what="this issue"
                signalTimes={Object.fromEntries(i.evidence.map((e) => [e.signal_id, Date.parse(e.occurred_at)]))} />
            </section>
            <div class="grid two">
              <section class="card" aria-labelledby="is-sessions">
                <h2 id="is-sessions">Linked sessions</h2>
                {i.linked_sessions.length === 0 ? <Empty>No sessions linked.</Empty> : (
                  <ul class="plain-list">
                    {i.linked_sessions.map((s) => (
                      <li key={s.session_id}><a href={href('sessions', s.session_id)}><code>{s.session_id.slice(0, 12)}…</code></a> · <Time iso={s.started_at} short /> · {s.device_type ?? 'unknown device'} · entered on <code>{s.entry_page}</code>{s.converted ? ' · converted' : ''}</li>
                    ))}
                  </ul>
                )}
                <p class="small"><a id="is-all-sessions" href={href('sessions', { issue_id: i.id, range: '30d' })}>Every session that met this issue</a></p>
              </section>
              <section class="card" aria-labelledby="is-evidence">
                <h2 id="is-evidence">Evidence</h2>
                {i.evidence.length === 0 ? <Empty>No evidence kept.</Empty> : (
                  <ul class="plain-list">
                    {i.evidence.slice(0, 12).map((e) => (
                      <li key={e.signal_id}><Time iso={e.occurred_at} short /> · “{e.label ?? 'unlabelled'}” · confidence {percent(e.confidence)} · <a href={href('sessions', e.session_id)}>session</a></li>
                    ))}
                  </ul>
                )}
              </section>
            </div>
            <div class="grid two">
              <section class="card" aria-labelledby="is-verify">
                <h2 id="is-verify">Verification after deploys</h2>
                {i.verifications.length === 0 ? <Empty>Not verified against a deploy yet.</Empty> : (
                  <div class="table-scroll">
                    <table>
                      <thead><tr><th scope="col">Deploy</th><th scope="col">Result</th><th scope="col" class="num">Before</th><th scope="col" class="num">After</th><th scope="col">Decided</th></tr></thead>
                      <tbody>
                        {i.verifications.map((v) => (
                          <tr key={v.id}><th scope="row">{v.deploy_version ?? '–'}</th><td><Badge kind="status" value={v.result} /></td><td class="num">{percent(v.before_rate)}</td><td class="num">{percent(v.after_rate)}</td><td><Time iso={v.decided_at} short /></td></tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </section>
              <section class="card" aria-labelledby="is-deploy">
                <h2 id="is-deploy">Deploy correlation and ticket</h2>
                {i.deploy_correlation
                  ? <p>Deploy <strong>{i.deploy_correlation.version}</strong> (<Time iso={i.deploy_correlation.deployed_at} short />): {i.deploy_correlation.relation}{i.deploy_correlation.delta != null && <>; site score {delta(i.deploy_correlation.delta)}</>}.</p>
                  : <p class="muted">No deploy correlates with this issue.</p>}
                <Ticket site={site} issue={i} reload={issue.reload} />
              </section>
            </div>
          </>
        )}
      </Async>
    </div>
  );
}
