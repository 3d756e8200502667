import { useState } from 'preact/hooks';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';

interface Integration { id: string; provider: string; config: Record<string, string>; created_at: string }
/** Each provider's config fields, as the API takes them (Slack also takes { bot_token, channel }). */
const FIELDS: Record<string, [string, string][]> = {
  slack: [['webhook_url', 'Incoming webhook URL']],
  pagerduty: [['routing_key', 'Routing key (Events API v2)']],
  linear: [['api_key', 'API key'], ['team_id', 'Team id']],
  github: [['token', 'Token'], ['repo', 'Repository (owner/name)']],
};

export function IntegrationsSection({ site }: { site: string | null }) {
  const list = useApi(() => api.get<{ integrations: Integration[] }>('/manage/integrations', { site_id: site }), [site]);
  const action = useAction();
  const [provider, setProvider] = useState('slack');
  const [values, setValues] = useState<Record<string, string>>({});
  const create = (e: Event) => {
    e.preventDefault();
    const config = Object.fromEntries(FIELDS[provider].map(([f]) => [f, (values[f] ?? '').trim()]));
    void action.run(async () => { await api.post('/manage/integrations', { site_id: site, provider, config }); setValues({}); list.reload(); }, `${provider} connected.`);
  };
  return (
    <>
      <h2>Integrations</h2>
      <Async load={list} what="integrations">
        {(l) => l.integrations.length === 0 ? <Empty>No integrations. Slack and PagerDuty receive alerts; Linear and GitHub receive tickets.</Empty> : (
          <ul class="plain-list">
            {l.integrations.map((i) => (
              <li key={i.id} class="item">
                <strong>{i.provider}</strong> · {Object.entries(i.config).map(([k, v]) => `${k}: ${v}`).join(' · ')} · since <Time iso={i.created_at} short />
                {canAdmin.value && <> <ConfirmButton label="Disconnect" question={`Disconnect ${i.provider}?`} disabled={action.busy} onConfirm={() => void action.run(async () => { await api.del(`/manage/integrations/${i.id}`); list.reload(); }, `${i.provider} disconnected.`)} /></>}
              </li>
            ))}
          </ul>
        )}
      </Async>
      {canAdmin.value && (
        <form class="stack-form" onSubmit={create}>
          <h3>Connect</h3>
          <label for="int-provider">Provider</label>
          <select id="int-provider" value={provider} onChange={(e) => { setProvider(e.currentTarget.value); setValues({}); }}>
            {Object.keys(FIELDS).map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
          {FIELDS[provider].map(([field, label]) => (
            <span key={field} class="field">
              <label for={`int-${field}`}>{label}</label>
              <input id={`int-${field}`} required autoComplete="off" value={values[field] ?? ''} onInput={(e) => setValues({ ...values, [field]: e.currentTarget.value })} />
            </span>
          ))}
          <button type="submit" class="primary" disabled={action.busy}>Connect {provider}</button>
        </form>
      )}
      <ActionOutcome action={action} what="change the integrations" />
    </>
  );
}
