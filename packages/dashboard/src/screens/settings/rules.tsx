import { useState } from 'preact/hooks';
import type { AlertRule, AlertRuleList, IntegrationList } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { href } from '../../state/router.ts';
import { canAdmin } from '../../state/session.ts';
import { requestSchema } from '../../state/openapi.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Checkboxes, ConfirmButton } from '../../components/forms.tsx';
import { apiFieldIssue, controlProps, Field } from '../../components/fields.tsx';
import { checkSchema, issuesByControl, type Issue } from '../../lib/schema-check.ts';
import { CONFIG_FIELDS, SITE_LEVEL, THRESHOLDS, TRIGGERS, triggerSchema, type Trigger } from '../../lib/rule-triggers.ts';
import { num, words } from '../../lib/format.ts';

const CHANNELS = ['webhook', 'email', 'slack', 'pagerduty', 'mcp'] as const;
/** The channels that deliver only through a connected integration of the site, by their provider's name. */
const NEEDS_INTEGRATION: Record<string, string> = { slack: 'Slack', pagerduty: 'PagerDuty' };

/**
 * The warning for channels whose alerts would be lost (the server fails them with
 * `no_integration`): a link to connect Slack or PagerDuty; email needs SMTP_URL on the server.
 */
export function ChannelWarning({ missing }: { missing: string[] }) {
  const providers = missing.filter((c) => NEEDS_INTEGRATION[c]);
  const names = providers.map((c) => NEEDS_INTEGRATION[c]).join(' and ');
  return (
    <>
      {providers.length > 0 && (
        <p class="channel-warning" role="note">
          ⚠ {names} {providers.length > 1 ? 'are' : 'is'} not connected: these alerts will not reach {names}.{' '}
          {providers.map((c, i) => <span key={c}>{i > 0 ? ' · ' : ''}<a href={href('settings', 'integrations', { provider: c })}>Connect {NEEDS_INTEGRATION[c]}</a></span>)}
        </p>
      )}
      {missing.includes('email') && (
        <p class="channel-warning" role="note">⚠ Email is not set up on this server: these alerts will not be emailed. The server's operator sets SMTP_URL to send them.</p>
      )}
    </>
  );
}

export function RulesSection({ site }: { site: string | null }) {
  const rules = useApi(() => api.get<AlertRuleList>('/manage/alert-rules', { site_id: site }), [site]);
  const integrations = useApi(() => api.get<IntegrationList>('/manage/integrations', { site_id: site }), [site]);
  const action = useAction();
  const [editing, setEditing] = useState<string | null>(null);
  const admin = canAdmin.value;
  // Until the integrations are known, warn of nothing rather than of everything.
  const connected = new Set(integrations.state === 'ok' ? integrations.data.integrations.map((i) => i.provider) : Object.keys(NEEDS_INTEGRATION));
  // Whether email can go out is the server's setting (SMTP_URL), the same for every rule: any rule with email says it.
  const emailFails = rules.state === 'ok' && rules.data.rules.some((r) => r.undeliverable_channels.includes('email'));
  /** What a form's ticked channels would lose, before the server has the rule. */
  const wouldFail = (channels: string[]) => channels.filter((c) => (NEEDS_INTEGRATION[c] && !connected.has(c)) || (c === 'email' && emailFails));
  return (
    <>
      <h2>Alert rules</h2>
      <Async load={rules} what="alert rules">
        {(l) => (
          <>
            {l.rules.length === 0 ? <Empty>No rules: nothing will alert. Create one below.</Empty> : (
              <div class="table-scroll">
                <table class="rules">
                  <thead><tr><th scope="col">Name</th><th scope="col">Trigger</th><th scope="col" class="num">Threshold</th><th scope="col">Pages</th><th scope="col">Channels</th><th scope="col">State</th>{admin && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
                  <tbody>
                    {l.rules.map((r) => (
                      <tr key={r.id} data-rule={r.id}>
                        <th scope="row">{r.name}</th><td>{words(r.trigger_type)}</td><td class="num">{num(r.threshold, 2)}</td><td><code>{SITE_LEVEL.includes(r.trigger_type) ? 'whole site' : r.page_pattern ?? '–'}</code></td>
                        <td class="small">{r.channels.join(', ') || 'none'}<ChannelWarning missing={r.undeliverable_channels} /></td><td>{r.enabled ? 'on' : 'off'}</td>
                        {admin && <td class="actions">
                          <button type="button" disabled={action.busy} aria-expanded={editing === r.id} onClick={() => setEditing(editing === r.id ? null : r.id)}>Edit</button>
                          <button type="button" disabled={action.busy} onClick={() => void action.run(async () => { await api.patch(`/manage/alert-rules/${r.id}`, { enabled: !r.enabled }); rules.reload(); })}>{r.enabled ? 'Turn off' : 'Turn on'}</button>
                          <ConfirmButton label="Delete" question={`Delete the rule ${r.name}?`} disabled={action.busy} onConfirm={() => void action.run(async () => { await api.del(`/manage/alert-rules/${r.id}`); rules.reload(); }, 'Rule deleted.')} />
                        </td>}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {admin && editing && l.rules.some((r) => r.id === editing) && (
              <RuleForm key={editing} site={site} rule={l.rules.find((r) => r.id === editing)!} wouldFail={wouldFail} done={() => { setEditing(null); rules.reload(); }} />
            )}
            {admin && <RuleForm key="new" site={site} wouldFail={wouldFail} done={rules.reload} />}
          </>
        )}
      </Async>
      <ActionOutcome action={action} what="change the alert rules" />
    </>
  );
}

type Control = 'name' | 'trigger_type' | 'threshold' | 'page_pattern' | 'cooldown_minutes' | 'channels' | 'slack_channel' | 'recipients' | `config.${string}` | 'form';

/** The control an API field path belongs to (`config.recipients.2` -> recipients, `channels.0` -> channels). */
function controlOf(field: string): Control {
  const [head, second] = field.split('.');
  if (head === 'config') return !second ? 'form' : second === 'recipients' ? 'recipients' : `config.${second}`;
  if (['name', 'trigger_type', 'threshold', 'page_pattern', 'cooldown_minutes', 'channels', 'slack_channel'].includes(head)) return head as Control;
  return 'form';
}

const initialForm = (rule?: AlertRule) => ({
  name: rule?.name ?? '', trigger_type: rule?.trigger_type ?? 'spike' as Trigger, threshold: rule ? String(rule.threshold) : '10',
  page_pattern: rule?.page_pattern ?? '*', cooldown_minutes: rule ? String(rule.cooldown_minutes) : '60', slack_channel: rule?.slack_channel ?? '',
  recipients: Array.isArray(rule?.config.recipients) ? (rule.config.recipients as string[]).join('\n') : '',
  config: Object.fromEntries(Object.entries(rule?.config ?? {}).filter(([k]) => k !== 'recipients').map(([k, v]) => [k, String(v)])) as Record<string, string>,
});

/** Creates a rule, or edits `rule`: one control per field, the trigger's own settings, a message by each control. */
function RuleForm({ site, rule, wouldFail, done }: { site: string | null; rule?: AlertRule; wouldFail(channels: string[]): string[]; done(): void }) {
  const action = useAction();
  const [form, setForm] = useState(() => initialForm(rule));
  const [channels, setChannels] = useState<string[]>(rule?.channels ?? ['webhook']);
  const [errors, setErrors] = useState<Partial<Record<Control, string>>>({});
  const [savedNote, setSaved] = useState<string | null>(null);
  const id = (c: string) => `${rule ? 'edit' : 'new'}-rule-${c.replace('.', '-')}`;
  const trigger = form.trigger_type;
  const change = (patch: Partial<typeof form>, control: Control) => { setForm({ ...form, ...patch }); setErrors({ ...errors, [control]: undefined, form: undefined }); setSaved(null); };
  const text = (c: 'name' | 'threshold' | 'page_pattern' | 'cooldown_minutes' | 'slack_channel') => ({
    ...controlProps(id(c), errors[c]), value: form[c], onInput: (e: { currentTarget: HTMLInputElement }) => change({ [c]: e.currentTarget.value }, c),
  });

  /** The body as typed, and what could not be read as a number. */
  const body = (): { body: Record<string, unknown>; issues: Issue[] } => {
    const issues: Issue[] = [];
    const number = (field: string, raw: string) => {
      const n = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(n)) { issues.push({ field, message: 'must be a number' }); return undefined; }
      return n;
    };
    const config: Record<string, unknown> = {};
    for (const f of CONFIG_FIELDS[trigger]) {
      const raw = (form.config[f.name] ?? '').trim();
      if (raw === '') continue;
      config[f.name] = f.schema.type === 'number' || f.schema.type === 'integer' ? number(`config.${f.name}`, raw) : raw;
    }
    const recipients = form.recipients.split(/[\n,]/).map((r) => r.trim()).filter(Boolean);
    if (recipients.length > 0 && channels.includes('email')) config.recipients = recipients;
    const fields: Record<string, unknown> = {
      name: form.name.trim(), threshold: number('threshold', form.threshold), cooldown_minutes: number('cooldown_minutes', form.cooldown_minutes),
      page_pattern: form.page_pattern.trim() || '*', channels, slack_channel: channels.includes('slack') && form.slack_channel.trim() ? form.slack_channel.trim() : null, config,
    };
    return { body: rule ? fields : { site_id: site ?? undefined, trigger_type: trigger, ...fields }, issues };
  };

  const save = (e: Event) => {
    e.preventDefault();
    const { body: payload, issues } = body();
    if (issues.length > 0) { setErrors(issuesByControl(issues, controlOf)); return; }
    setSaved(null);
    void action.run(async () => {
      // The route's published schema (name, cooldown, pattern, channels) and the trigger's bounds.
      const schema = await requestSchema(rule ? 'PATCH' : 'POST', rule ? '/v1/manage/alert-rules/{rule_id}' : '/v1/manage/alert-rules');
      const found = [...(schema ? checkSchema(schema, payload) : []), ...checkSchema(triggerSchema(trigger), payload)];
      if (found.length > 0) { setErrors(issuesByControl(found, controlOf)); return; }
      setErrors({});
      try {
        if (rule) await api.patch(`/manage/alert-rules/${rule.id}`, payload);
        else await api.post('/manage/alert-rules', payload);
      } catch (err) {
        const issue = apiFieldIssue(err);
        if (issue) { setErrors(issuesByControl([issue], controlOf)); return; }
        throw err;
      }
      if (!rule) setForm({ ...form, name: '' });
      setSaved(rule ? `Saved the rule ${String(payload.name)}.` : `Created the rule ${String(payload.name)}.`);
      done();
    });
  };

  const bounds = THRESHOLDS[trigger];
  return (
    <form class="stack-form rule-form" onSubmit={save} noValidate aria-label={rule ? `Edit the rule ${rule.name}` : 'New rule'}>
      <h3>{rule ? `Edit ${rule.name}` : 'New rule'}</h3>
      <Field id={id('name')} label="Name" error={errors.name}><input {...text('name')} required /></Field>
      <Field id={id('trigger_type')} label="Trigger" error={errors.trigger_type} hint={rule ? 'A rule keeps its trigger; make a new rule for another.' : undefined}>
        <select {...controlProps(id('trigger_type'), errors.trigger_type)} value={trigger} disabled={!!rule}
          onChange={(e) => change({ trigger_type: e.currentTarget.value as Trigger, threshold: String(THRESHOLDS[e.currentTarget.value as Trigger].min), config: {} }, 'trigger_type')}>
          {TRIGGERS.map((t) => <option key={t} value={t}>{words(t)}</option>)}
        </select>
      </Field>
      <Field id={id('threshold')} label={`Threshold (${bounds.means}, ${num(bounds.min)} to ${num(bounds.max)})`} error={errors.threshold}>
        <input {...text('threshold')} inputMode="decimal" required />
      </Field>
      {CONFIG_FIELDS[trigger].map((f) => {
        const c = `config.${f.name}` as const;
        const props = { ...controlProps(id(c), errors[c]), value: form.config[f.name] ?? '' };
        const set = (v: string) => change({ config: { ...form.config, [f.name]: v } }, c);
        return (
          <Field key={f.name} id={id(c)} label={f.label} error={errors[c]}>
            {f.options
              ? <select {...props} onChange={(e) => set(e.currentTarget.value)}><option value="">default</option>{f.options.map((o) => <option key={o} value={o}>{o}</option>)}</select>
              : <input {...props} inputMode={f.schema.type === 'string' ? undefined : 'decimal'} onInput={(e) => set(e.currentTarget.value)} />}
          </Field>
        );
      })}
      {SITE_LEVEL.includes(trigger)
        ? <p class="small muted">This trigger watches the whole site: it has no page pattern.</p>
        : <Field id={id('page_pattern')} label="Pages (* for all, a path, or a prefix ending in *)" error={errors.page_pattern}><input {...text('page_pattern')} /></Field>}
      <Field id={id('cooldown_minutes')} label="Cooldown (minutes between notifications of an unacknowledged alert)" error={errors.cooldown_minutes}>
        <input {...text('cooldown_minutes')} inputMode="numeric" required />
      </Field>
      <Checkboxes legend="Channels" options={CHANNELS} chosen={channels} onChange={(next) => { setChannels(next); setErrors({ ...errors, channels: undefined }); }} />
      {errors.channels && <span class="field-error" role="alert">{errors.channels}</span>}
      <ChannelWarning missing={wouldFail(channels)} />
      {channels.includes('slack') && (
        <Field id={id('slack_channel')} label="Slack channel (a bot token's channel; empty for the integration's)" error={errors.slack_channel}><input {...text('slack_channel')} /></Field>
      )}
      {channels.includes('email') && (
        <Field id={id('recipients')} label="Email recipients (one a line; empty for the org's members)" error={errors.recipients}>
          <textarea {...controlProps(id('recipients'), errors.recipients)} rows={2} value={form.recipients} onInput={(e) => change({ recipients: e.currentTarget.value }, 'recipients')} />
        </Field>
      )}
      {errors.form && <p class="field-error" role="alert">{errors.form}</p>}
      <button type="submit" class="primary" disabled={action.busy || channels.length === 0}>{rule ? 'Save rule' : 'Create rule'}</button>
      {savedNote && <p class="state done" role="status">{savedNote}</p>}
      <ActionOutcome action={action} what={rule ? 'save the rule' : 'create the rule'} />
    </form>
  );
}
