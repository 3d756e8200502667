// Funnels: pick a saved funnel or build one (steps typed one per line), and see per step how many
// entered, how many went on, the median time to the next step, and the friction met there: its
// top signals (each a link to the sessions that met it on that page), its open issues, and how
// many who dropped met friction first. Admins save, change and delete funnels.
import { useEffect, useState } from 'preact/hooks';
import type { Funnel, NewFunnel, SavedFunnels } from '../api/types.ts';
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import { canAdmin } from '../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../components/async.tsx';
import { Bar } from '../components/bar.tsx';
import { Badge, SignalChip } from '../components/bits.tsx';
import { ConfirmButton } from '../components/forms.tsx';
import { asDevice, asRange, DevicePicker, rangeQuery, RangePicker } from '../components/filters.tsx';
import { duration, num, percent } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { DEFAULT_WINDOW_MINUTES, parseSteps, stepSessionsQuery, stepShares, stepsProblem } from '../lib/funnel-query.ts';


function FunnelReport({ funnel, range }: { funnel: Funnel; range: string }) {
  if (funnel.entered === 0) return <Empty>Nobody entered the first step in this period.</Empty>;
  const shares = stepShares(funnel.steps.map((s) => s.entered));
  return (
    <>
      <p class="funnel-total"><strong>{percent(funnel.completed / funnel.entered)}</strong> completed: {num(funnel.completed)} of {num(funnel.entered)} sessions that entered, within {num(funnel.window_minutes)} minutes of the first step.{funnel.sampled ? ` Counted over the ${num(funnel.sessions_analyzed)} most recent sessions that entered; narrow the period for exact figures.` : ''}</p>
      <ol class="funnel-steps">
        {funnel.steps.map((s, k) => {
          const last = k === funnel.steps.length - 1;
          const dropped = s.entered - s.converted;
          const signals = Object.entries(s.friction.signals).sort((a, b) => b[1] - a[1]);
          return (
            <li key={k} class="card funnel-step" data-step={k}>
              <h2><span class="step-number">{k + 1}</span> {s.kind === 'page' ? <code>{s.step}</code> : <>event <code>{s.step}</code></>}</h2>
              <div class="funnel-bar"><Bar value={shares[k]} max={1} label={`${num(s.entered)} entered, ${percent(shares[k])} of step 1`} /> <span class="entered">{num(s.entered)} entered</span></div>
              {!last && (
                <p class="small">
                  <strong class="conversion">{percent(s.conversion_rate)}</strong> went on to step {k + 2} ({num(s.converted)}); <span class="dropped">{num(dropped)} dropped</span>
                  {s.median_ms_to_next !== null && <> · median {duration(s.median_ms_to_next)} to the next step</>}
                </p>
              )}
              <div class="friction">
                {!last && dropped > 0 && <p class="small"><span class="dropped-after-friction">{num(s.friction.dropped_after_friction)}</span> of those who dropped met friction here first.</p>}
                {signals.length > 0 && (
                  <div class="chips">
                    {signals.map(([type, n]) => {
                      const q = stepSessionsQuery(s.step, type);
                      const chip = <SignalChip type={type} text={`${signalStyle(type).label} ${num(n)}`} />;
                      return q ? <a key={type} class="step-sessions" href={href('sessions', { ...q, range })}>{chip}</a> : <span key={type}>{chip}</span>;
                    })}
                  </div>
                )}
                {s.friction.issues.length > 0 && (
                  <ul class="plain-list">{s.friction.issues.map((i) => <li key={i.id}><Badge kind="severity" value={i.severity} /> <a href={href('issues', i.id)}>{i.title}</a></li>)}</ul>
                )}
                {signals.length === 0 && s.friction.issues.length === 0 && <p class="muted small">No friction met at this step.</p>}
              </div>
            </li>
          );
        })}
      </ol>
    </>
  );
}

export function FunnelsScreen({ site, query }: { site: string; query: URLSearchParams }) {
  const saved = useApi(() => api.get<SavedFunnels>('/manage/funnels', { site_id: site }), [site]);
  const id = query.get('id') ?? '';
  const chosen = saved.data?.funnels.find((f) => f.id === id) ?? null;
  const steps = chosen ? chosen.steps : parseSteps(query.get('steps') ?? '');
  const windowMinutes = chosen ? chosen.window_minutes : Number(query.get('window')) || DEFAULT_WINDOW_MINUTES;
  const device = query.get('device') ? asDevice(query.get('device')) : null;
  const range = asRange(query.get('range'));
  const set = (change: Record<string, string | null>) => navigate(href('funnels', { id, steps: id ? null : steps.join(','), window: id ? null : String(windowMinutes), device, range, ...change }));
  const [draft, setDraft] = useState(steps.join('\n'));
  const [draftWindow, setDraftWindow] = useState(String(windowMinutes));
  const [name, setName] = useState(chosen?.name ?? '');
  useEffect(() => { setDraft(steps.join('\n')); setDraftWindow(String(windowMinutes)); setName(chosen?.name ?? ''); }, [id, chosen?.id, query.get('steps'), query.get('window')]);
  const action = useAction();
  const problem = stepsProblem(steps);
  const report = useApi(() => (problem ? Promise.resolve(null) : api.get<Funnel>('/query/funnel', {
    site_id: site, steps: steps.join(','), window_minutes: windowMinutes, device: device ?? undefined, ...rangeQuery(range),
  })), [site, steps.join(','), windowMinutes, device, range]);
  const draftSteps = parseSteps(draft);
  const draftProblem = stepsProblem(draftSteps);
  const body = () => ({ name: name.trim(), steps: draftSteps, window_minutes: Number(draftWindow) });

  return (
    <div class="screen funnels">
      <h1>Funnels</h1>
      <p class="muted">Of the sessions that reached the first step, how many went on through each next step in order, within the window, and what friction met them at each step.</p>
      <Async load={saved} what="the saved funnels">
        {(l) => (
          <label class="inline"><span>Saved funnel</span>
            <select id="funnel-saved" value={id} onChange={(e) => navigate(href('funnels', { id: e.currentTarget.value, device, range }))}>
              <option value="">{l.funnels.length === 0 ? 'None saved yet' : 'Build your own'}</option>
              {l.funnels.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
            </select>
          </label>
        )}
      </Async>
      <form class="stack-form funnel-form" onSubmit={(e) => { e.preventDefault(); if (!draftProblem) navigate(href('funnels', { steps: draftSteps.join(','), window: draftWindow, device, range })); }}>
        <label for="funnel-steps">Steps, in order, one per line (<code>/page</code>, <code>/products/*</code>, or an event name)</label>
        <textarea id="funnel-steps" rows={4} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        <label for="funnel-window">Window (minutes after the first step)</label>
        <input id="funnel-window" type="number" min={1} max={10080} step={1} value={draftWindow} onInput={(e) => setDraftWindow(e.currentTarget.value)} />
        {draft.trim() !== '' && draftProblem && <p class="state error" role="alert">{draftProblem}</p>}
        <button type="submit" class="primary" disabled={draftProblem !== null}>Show this funnel</button>
        {canAdmin.value && (
          <div class="row-form">
            <label for="funnel-name">Name</label>
            <input id="funnel-name" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            <button type="button" id="funnel-save" disabled={action.busy || draftProblem !== null || name.trim() === ''} onClick={() => void action.run(async () => {
              const f = await api.post<NewFunnel>('/manage/funnels', { site_id: site, ...body() });
              saved.reload();
              navigate(href('funnels', { id: f.id, device, range }));
            }, 'Funnel saved.')}>Save as new</button>
            {chosen && <button type="button" id="funnel-update" disabled={action.busy || draftProblem !== null || name.trim() === ''} onClick={() => void action.run(async () => {
              await api.patch(`/manage/funnels/${chosen.id}`, body());
              saved.reload();
            }, 'Funnel updated.')}>Update “{chosen.name}”</button>}
            {chosen && <ConfirmButton label="Delete" question={`Delete the funnel “${chosen.name}”?`} disabled={action.busy} onConfirm={() => void action.run(async () => {
              await api.del(`/manage/funnels/${chosen.id}`);
              saved.reload();
              navigate(href('funnels', { device, range }));
            }, 'Funnel deleted.')} />}
          </div>
        )}
      </form>
      <ActionOutcome action={action} what="save the funnel" />
      <div class="filters">
        <DevicePicker device={device} onChange={(d) => set({ device: d })} onAll={() => set({ device: null })} />
        <RangePicker range={range} onChange={(r) => set({ range: r })} />
      </div>
      {steps.length === 0 ? <Empty>Pick a saved funnel or type its steps above.</Empty>
        : problem ? <p class="state notice">{problem}</p>
        : <Async load={report} what="the funnel">{(f) => (f ? <FunnelReport funnel={f} range={range} /> : null)}</Async>}
    </div>
  );
}
