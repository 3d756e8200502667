import { useEffect, useState } from 'preact/hooks';
import type { SdkConfigEnvironment, SdkConfigs } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { requestSchema } from '../../state/openapi.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { apiFieldIssue, controlProps, Field } from '../../components/fields.tsx';
import { checkSchema, issuesByControl } from '../../lib/schema-check.ts';
import { ClipStorage } from './clip-storage.tsx';
import { controlOf, fromConfig, patchBetween, toConfig, type Config, type Control, type Values } from '../../lib/sdk-config-form.ts';

const PATCH_PATH = '/v1/manage/sdk-config/{environment}';

/** Messages by control; `form` for what belongs to no one control, `json` for the advanced view. */
type Errors = Partial<Record<Control | 'form' | 'json', string>>;

export function SdkConfigSection({ site }: { site: string | null }) {
  const configs = useApi(() => api.get<SdkConfigs>('/manage/sdk-config', { site_id: site }), [site]);
  return (
    <>
      <h2>SDK config</h2>
      <p class="muted">What the browser SDK reads at start, per environment: sampling, privacy, ignored elements, page groups, signal weights and thresholds, revenue, clips. Another environment overrides production setting by setting.</p>
      <Async load={configs} what="the SDK config">
        {(c) => (
          <>
            {c.environments.length === 0 ? <Empty>No environment has settings yet: the SDK uses its defaults.</Empty> : (
              <ul class="plain-list">
                {c.environments.map((env) => (
                  <li key={env.environment} class="item"><strong>{env.environment}</strong> · updated <Time iso={env.updated_at} short /> · {Object.keys(env.config).length === 0 ? 'defaults' : Object.keys(env.config).join(', ')}</li>
                ))}
              </ul>
            )}
            {canAdmin.value && <SdkConfigForm site={site} environments={c.environments} saved={configs.reload} />}
          </>
        )}
      </Async>
      {site && <ClipStorage site={site} />}
    </>
  );
}

function SdkConfigForm({ site, environments, saved }: { site: string | null; environments: SdkConfigEnvironment[]; saved(): void }) {
  const action = useAction();
  const [environment, setEnvironment] = useState('production');
  const stored = environments.find((e) => e.environment === environment.trim())?.config ?? {};
  const [values, setValues] = useState<Values>(() => fromConfig(stored));
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [json, setJson] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [savedNote, setSaved] = useState<string | null>(null);
  // Another environment (or a save) shows what is stored for it.
  const storedText = JSON.stringify(stored);
  useEffect(() => { setValues(fromConfig(stored)); setErrors({}); if (mode === 'json') setJson(JSON.stringify(stored, null, 2)); }, [environment.trim(), storedText]);

  const set = (c: Control, v: string | boolean) => { setValues({ ...values, [c]: v }); setErrors({ ...errors, [c]: undefined, form: undefined }); setSaved(null); };
  const text = (c: Control) => ({ ...controlProps(`sdk-${c.replace('.', '-')}`, errors[c]), value: String(values[c]), onInput: (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => set(c, e.currentTarget.value) });
  const flag = (c: Control) => ({ ...controlProps(`sdk-${c.replace('.', '-')}`, errors[c]), checked: values[c] === true, onChange: (e: { currentTarget: HTMLInputElement }) => set(c, e.currentTarget.checked) });
  const field = (c: Control) => ({ id: `sdk-${c.replace('.', '-')}`, error: errors[c] });

  /** The config the current view describes, or the messages that stop it. */
  const current = (): { config: Config } | { errors: Errors } => {
    if (mode === 'json') {
      let parsed: unknown;
      try { parsed = JSON.parse(json); } catch { return { errors: { json: 'This is not valid JSON.' } }; }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { errors: { json: 'Write the settings as one JSON object.' } };
      return { config: parsed as Config };
    }
    const { config, issues } = toConfig(values, stored);
    if (issues.length > 0) return { errors: issuesByControl(issues, (f) => controlOf(f) ?? 'form') };
    return { config };
  };

  const showMode = (next: 'form' | 'json') => {
    if (next === mode) return;
    const now = current();
    if ('errors' in now) { setErrors(now.errors); return; }
    if (next === 'json') setJson(JSON.stringify(now.config, null, 2));
    else setValues(fromConfig(now.config));
    setErrors({});
    setMode(next);
  };

  const save = (e: Event) => {
    e.preventDefault();
    const env = environment.trim();
    const now = current();
    if ('errors' in now) { setErrors(now.errors); return; }
    const patch = patchBetween(stored, now.config);
    if (Object.keys(patch).length === 0) { setErrors({ form: `Nothing changed: the ${env} settings are already these.` }); return; }
    // In the JSON view every message goes under the text; in the form, by its control.
    const place = (field: string) => (mode === 'json' ? 'json' : controlOf(field) ?? 'form');
    setSaved(null);
    void action.run(async () => {
      const schema = await requestSchema('PATCH', PATCH_PATH);
      const issues = schema ? checkSchema(schema, patch) : [];
      if (issues.length > 0) { setErrors(issuesByControl(issues, place)); return; }
      setErrors({});
      try {
        await api.patch(`/manage/sdk-config/${encodeURIComponent(env)}`, patch, { site_id: site });
      } catch (err) {
        // A 400 naming a field is that control's message, not a failure of the whole form.
        const issue = apiFieldIssue(err);
        if (issue) { setErrors(issuesByControl([issue], place)); return; }
        throw err;
      }
      setSaved(`Saved the ${env} settings.`);
      saved();
    });
  };

  return (
    <form class="stack-form sdk-form" onSubmit={save} noValidate>
      <h3>Change an environment</h3>
      <Field id="sdk-env" label="Environment" hint={environments.length > 0 ? `Stored: ${environments.map((e) => e.environment).join(', ')}` : undefined}>
        <input id="sdk-env" required maxLength={64} list="sdk-envs" value={environment} onInput={(e) => setEnvironment(e.currentTarget.value)} />
      </Field>
      <datalist id="sdk-envs">{environments.map((e) => <option key={e.environment} value={e.environment} />)}</datalist>
      <div class="segmented" role="group" aria-label="How to edit">
        <button type="button" aria-pressed={mode === 'form'} onClick={() => showMode('form')}>Form</button>
        <button type="button" aria-pressed={mode === 'json'} onClick={() => showMode('json')}>Advanced: JSON</button>
      </div>
      {mode === 'json' ? (
        <Field id="sdk-json" label="The environment's settings (JSON; a setting left out is removed)" error={errors.json}>
          <textarea {...controlProps('sdk-json', errors.json)} rows={14} class="mono" value={json} onInput={(e) => { setJson(e.currentTarget.value); setErrors({}); }} />
        </Field>
      ) : (
        <>
          <Field {...field('sample_rate')} label="Sample rate (0 to 1; empty for the default, 1)">
            <input {...text('sample_rate')} inputMode="decimal" />
          </Field>
          <fieldset class="checks">
            <legend>Privacy</legend>
            <label class="check"><input type="checkbox" {...flag('privacy.respect_dnt')} /> Respect Do Not Track</label>
            <label class="check"><input type="checkbox" {...flag('privacy.require_consent')} /> Wait for consent</label>
            <label class="check"><input type="checkbox" {...flag('privacy.cookieless')} /> Cookieless</label>
            {errors['privacy.respect_dnt'] && <span class="field-error" id="sdk-privacy-respect_dnt-error" role="alert">{errors['privacy.respect_dnt']}</span>}
          </fieldset>
          <Field {...field('ignore_selectors')} label="Ignored elements (one CSS selector a line)">
            <textarea {...text('ignore_selectors')} rows={3} class="mono" />
          </Field>
          <Field {...field('page_groups')} label="Page groups (one “pattern -> /page” a line; the pattern is a regular expression)">
            <textarea {...text('page_groups')} rows={3} class="mono" />
          </Field>
          <Field {...field('signal_weights')} label="Signal weights (one “signal = weight” a line, 0 to 100)">
            <textarea {...text('signal_weights')} rows={3} class="mono" />
          </Field>
          <Field {...field('signals')} label="Signals (one a line: the signal, then on or off and threshold=number settings)">
            <textarea {...text('signals')} rows={3} class="mono" />
          </Field>
          <fieldset class="field-group">
            <legend>Revenue</legend>
            <Field {...field('revenue_config.currency')} label="Currency (ISO 4217, e.g. USD)">
              <input {...text('revenue_config.currency')} maxLength={3} />
            </Field>
            <Field {...field('revenue_config.average_value_cents')} label="Average value of a conversion (cents)">
              <input {...text('revenue_config.average_value_cents')} inputMode="numeric" />
            </Field>
            <Field {...field('revenue_config.plan_values')} label="Plan values (one “plan = cents” a line)">
              <textarea {...text('revenue_config.plan_values')} rows={2} class="mono" />
            </Field>
            <Field {...field('revenue_config.conversion_events')} label="Conversion events (one event name a line)">
              <textarea {...text('revenue_config.conversion_events')} rows={2} class="mono" />
            </Field>
          </fieldset>
          <fieldset class="checks clips-settings">
            <legend>Clips (friction replay)</legend>
            <p class="muted small" data-testid="clips-recorded">
              With clips on, the SDK keeps the last few seconds of the page in memory and sends them only when a friction signal fires: up to 10 s before and 5 s after it, never whole sessions, and once a day a snapshot of each page for the heatmaps.
              {' '}Recorded: the page's layout, scrolling, pointer moves and clicks. Never recorded: text (masked unless a selector below unmasks it), what is typed into inputs (masked), images, video, canvas and iframes (unless media are allowed), and anything marked <code>data-mallard-block</code>, whatever this says. Masking happens in the browser, before anything is sent.
            </p>
            <label class="check"><input type="checkbox" {...flag('clips.enabled')} /> Record clips</label>
            <label class="check"><input type="checkbox" {...flag('clips.allow_media')} /> Allow media (record images, video and canvas instead of blocking them)</label>
            {errors['clips.enabled'] && <span class="field-error" id="sdk-clips-enabled-error" role="alert">{errors['clips.enabled']}</span>}
            {errors['clips.allow_media'] && <span class="field-error" id="sdk-clips-allow_media-error" role="alert">{errors['clips.allow_media']}</span>}
            <Field {...field('clips.unmask')} label="Unmasked text (one CSS selector a line: text inside these is recorded as it is)">
              <textarea {...text('clips.unmask')} rows={2} class="mono" />
            </Field>
          </fieldset>
          <Field {...field('verification_environments')} label="Verification environments (one a line: where a fix is checked before production)">
            <textarea {...text('verification_environments')} rows={2} class="mono" />
          </Field>
        </>
      )}
      {errors.form && <p class="field-error" role="alert">{errors.form}</p>}
      <button type="submit" class="primary" disabled={action.busy}>Save {environment.trim() || 'the environment'}</button>
      {savedNote && <p class="state done" role="status">{savedNote}</p>}
      <ActionOutcome action={action} what="save the SDK config" />
    </form>
  );
}
