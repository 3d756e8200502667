import { useState } from 'preact/hooks';
import { api, ApiError } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';

interface SdkConfig { environment: string; config: Record<string, unknown>; updated_at: string | null }

export function SdkConfigSection({ site }: { site: string | null }) {
  const configs = useApi(() => api.get<{ environments: SdkConfig[] }>('/manage/sdk-config', { site_id: site }), [site]);
  const action = useAction();
  const [environment, setEnvironment] = useState('production');
  const [patch, setPatch] = useState('{\n  "sample_rate": 1\n}');
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      let body: unknown;
      try {
        body = JSON.parse(patch);
      } catch {
        throw new ApiError('invalid_json', 'The settings are not valid JSON', 400);
      }
      await api.patch(`/manage/sdk-config/${encodeURIComponent(environment.trim())}`, body, { site_id: site });
      configs.reload();
    }, `Saved the ${environment.trim()} settings.`);
  };
  return (
    <>
      <h2>SDK config</h2>
      <p class="muted">What the browser SDK reads at start, per environment: sampling, signal weights and thresholds, ignored selectors, privacy, revenue. See docs/issues.md.</p>
      <Async load={configs} what="the SDK config">
        {(c) => c.environments.length === 0 ? <Empty>No environment has settings yet: the SDK uses its defaults.</Empty> : (
          <ul class="plain-list">
            {c.environments.map((env) => (
              <li key={env.environment} class="item"><strong>{env.environment}</strong> · updated <Time iso={env.updated_at} short /><pre>{JSON.stringify(env.config, null, 2)}</pre></li>
            ))}
          </ul>
        )}
      </Async>
      {canAdmin.value && (
        <form class="stack-form" onSubmit={save}>
          <h3>Change an environment</h3>
          <label for="sdk-env">Environment</label>
          <input id="sdk-env" required maxLength={64} value={environment} onInput={(e) => setEnvironment(e.currentTarget.value)} />
          <label for="sdk-patch">Settings to change (JSON; a key set to null is removed)</label>
          <textarea id="sdk-patch" rows={6} class="mono" value={patch} onInput={(e) => setPatch(e.currentTarget.value)} />
          <button type="submit" class="primary" disabled={action.busy}>Save</button>
        </form>
      )}
      <ActionOutcome action={action} what="save the SDK config" />
    </>
  );
}
