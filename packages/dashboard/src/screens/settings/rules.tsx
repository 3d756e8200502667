import { useState } from 'preact/hooks';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Checkboxes, ConfirmButton } from '../../components/forms.tsx';
import { num, words } from '../../lib/format.ts';

interface Rule { id: string; name: string; trigger_type: string; threshold: number; cooldown_minutes: number; channels: string[]; page_pattern: string | null; enabled: boolean }
const TRIGGERS = ['spike', 'anomaly', 'new_page', 'trend', 'co_occurrence', 'positive', 'budget', 'revenue_threshold', 'stalled_signups'];
const CHANNELS = ['webhook', 'email', 'slack', 'pagerduty', 'mcp'] as const;

export function RulesSection({ site }: { site: string | null }) {
  const rules = useApi(() => api.get<{ rules: Rule[] }>('/manage/alert-rules', { site_id: site }), [site]);
  const action = useAction();
  const [form, setForm] = useState({ name: '', trigger_type: 'spike', threshold: '10', page_pattern: '*', cooldown_minutes: '60' });
  const [channels, setChannels] = useState<string[]>(['webhook']);
  const admin = canAdmin.value;
  const field = (key: keyof typeof form) => ({ value: form[key], onInput: (e: { currentTarget: HTMLInputElement }) => setForm({ ...form, [key]: e.currentTarget.value }) });
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.post('/manage/alert-rules', {
        site_id: site, name: form.name.trim(), trigger_type: form.trigger_type, threshold: Number(form.threshold),
        cooldown_minutes: Number(form.cooldown_minutes), page_pattern: form.page_pattern.trim() || '*', channels,
      });
      setForm({ ...form, name: '' });
      rules.reload();
    }, 'Rule created.');
  };
  return (
    <>
      <h2>Alert rules</h2>
      <Async load={rules} what="alert rules">
        {(l) => l.rules.length === 0 ? <Empty>No rules: nothing will alert.</Empty> : (
          <div class="table-scroll">
            <table>
              <thead><tr><th scope="col">Name</th><th scope="col">Trigger</th><th scope="col" class="num">Threshold</th><th scope="col">Pages</th><th scope="col">Channels</th><th scope="col">State</th>{admin && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
              <tbody>
                {l.rules.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{r.name}</th><td>{words(r.trigger_type)}</td><td class="num">{num(r.threshold, 2)}</td><td><code>{r.page_pattern ?? '–'}</code></td><td class="small">{r.channels.join(', ')}</td><td>{r.enabled ? 'on' : 'off'}</td>
                    {admin && <td class="actions">
                      <button type="button" disabled={action.busy} onClick={() => void action.run(async () => { await api.patch(`/manage/alert-rules/${r.id}`, { enabled: !r.enabled }); rules.reload(); })}>{r.enabled ? 'Turn off' : 'Turn on'}</button>
                      <ConfirmButton label="Delete" question={`Delete the rule ${r.name}?`} disabled={action.busy} onConfirm={() => void action.run(async () => { await api.del(`/manage/alert-rules/${r.id}`); rules.reload(); }, 'Rule deleted.')} />
                    </td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      {admin && (
        <form class="stack-form" onSubmit={create}>
          <h3>New rule</h3>
          <label for="rule-name">Name</label>
          <input id="rule-name" required maxLength={200} {...field('name')} />
          <label for="rule-trigger">Trigger</label>
          <select id="rule-trigger" value={form.trigger_type} onChange={(e) => setForm({ ...form, trigger_type: e.currentTarget.value })}>{TRIGGERS.map((t) => <option key={t} value={t}>{words(t)}</option>)}</select>
          <label for="rule-threshold">Threshold</label>
          <input id="rule-threshold" type="number" step="any" required {...field('threshold')} />
          <label for="rule-pages">Pages (a path, or a prefix ending in *)</label>
          <input id="rule-pages" {...field('page_pattern')} />
          <label for="rule-cooldown">Cooldown (minutes)</label>
          <input id="rule-cooldown" type="number" min="0" step="1" required {...field('cooldown_minutes')} />
          <Checkboxes legend="Channels" options={CHANNELS} chosen={channels} onChange={setChannels} />
          <button type="submit" class="primary" disabled={action.busy || channels.length === 0}>Create rule</button>
        </form>
      )}
      <ActionOutcome action={action} what="change the alert rules" />
    </>
  );
}
