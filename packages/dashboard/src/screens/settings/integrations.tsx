import { useState } from 'preact/hooks';
import type { IntegrationList } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { route } from '../../state/router.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';
import { apiFieldIssue, controlProps, Field } from '../../components/fields.tsx';
import { PROVIDER_FIELDS } from '../../lib/integration-fields.ts';


export function IntegrationsSection({ site }: { site: string | null }) {
  const list = useApi(() => api.get<IntegrationList>('/manage/integrations', { site_id: site }), [site]);
  const action = useAction();
  return (
    <>
      <h2>Integrations</h2>
      <Async load={list} what="integrations">
        {(l) => l.integrations.length === 0 ? <Empty>No integrations. Slack and PagerDuty receive alerts; Linear and GitHub receive tickets. Connect one below.</Empty> : (
          <ul class="plain-list">
            {l.integrations.map((i) => (
              <li key={i.id} class="item" data-provider={i.provider}>
                <strong>{i.provider}</strong> · {Object.entries(i.config).map(([k, v]) => `${k}: ${v}`).join(' · ')} · since <Time iso={i.created_at} short />
                {canAdmin.value && <> <ConfirmButton label="Disconnect" question={`Disconnect ${i.provider}?`} disabled={action.busy} onConfirm={() => void action.run(async () => { await api.del(`/manage/integrations/${i.id}`); list.reload(); }, `${i.provider} disconnected.`)} /></>}
              </li>
            ))}
          </ul>
        )}
      </Async>
      <ActionOutcome action={action} what="change the integrations" />
      {canAdmin.value && <ConnectForm site={site} connected={list.reload} />}
    </>
  );
}

/** Connects a provider: its own fields (Slack: by webhook or by bot token), a message by each field the API refuses. */
function ConnectForm({ site, connected }: { site: string | null; connected(): void }) {
  const action = useAction();
  // A warning's "Connect Slack" link names the provider (#/settings/integrations?provider=slack).
  const asked = route.value.query.get('provider');
  const [provider, setProvider] = useState(asked && Object.hasOwn(PROVIDER_FIELDS, asked) ? asked : 'slack');
  const [variant, setVariant] = useState(0);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [savedNote, setSaved] = useState<string | null>(null);
  const fields = PROVIDER_FIELDS[provider].variants[variant].fields;
  const choose = (p: string, v: number) => { setProvider(p); setVariant(v); setValues({}); setErrors({}); setSaved(null); };

  const create = (e: Event) => {
    e.preventDefault();
    const config = Object.fromEntries(fields.map((f) => [f.name, (values[f.name] ?? '').trim()]));
    const empty = fields.filter((f) => config[f.name] === '');
    if (empty.length > 0) { setErrors(Object.fromEntries(empty.map((f) => [f.name, 'must not be empty']))); return; }
    setSaved(null);
    void action.run(async () => {
      try {
        await api.post('/manage/integrations', { site_id: site ?? undefined, provider, config });
      } catch (err) {
        // `config.repo` -> the repo field; anything else (a conflict, a refused target without a field) is the form's.
        const issue = apiFieldIssue(err);
        const name = issue?.field.startsWith('config.') ? issue.field.slice('config.'.length).split('.')[0] : null;
        if (issue && name && fields.some((f) => f.name === name)) { setErrors({ [name]: issue.message }); return; }
        throw err;
      }
      setValues({});
      setSaved(`${provider} connected.`);
      connected();
    });
  };

  const variants = PROVIDER_FIELDS[provider].variants;
  return (
    <form class="stack-form" onSubmit={create} noValidate aria-label="Connect an integration">
      <h3>Connect</h3>
      <Field id="int-provider" label="Provider">
        <select id="int-provider" value={provider} onChange={(e) => choose(e.currentTarget.value, 0)}>
          {Object.entries(PROVIDER_FIELDS).map(([p, { use }]) => <option key={p} value={p}>{p} ({use})</option>)}
        </select>
      </Field>
      {variants.length > 1 && (
        <div class="segmented" role="group" aria-label={`How to connect ${provider}`}>
          {variants.map((v, i) => <button key={v.label} type="button" aria-pressed={i === variant} onClick={() => choose(provider, i)}>{v.label}</button>)}
        </div>
      )}
      {fields.map((f) => (
        <Field key={f.name} id={`int-${f.name}`} label={f.label} error={errors[f.name]}>
          <input {...controlProps(`int-${f.name}`, errors[f.name])} required autoComplete="off" spellcheck={false}
            value={values[f.name] ?? ''} onInput={(e) => { setValues({ ...values, [f.name]: e.currentTarget.value }); setErrors({ ...errors, [f.name]: '' }); setSaved(null); }} />
        </Field>
      ))}
      <button type="submit" class="primary" disabled={action.busy}>Connect {provider}</button>
      {savedNote && <p class="state done" role="status">{savedNote}</p>}
      <ActionOutcome action={action} what={`connect ${provider}`} />
    </form>
  );
}
