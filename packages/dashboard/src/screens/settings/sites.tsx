import { useState } from 'preact/hooks';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { chooseSite, loadSites, sites } from '../../state/site.ts';
import type { Site } from '../../api/types.ts';
import { ActionOutcome, Empty, useAction } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';

/**
 * A site's retention: days of raw data (events, signals, sessions) kept, at most the instance's
 * MALLARD_RETENTION_DAYS; empty means the instance's period.
 */
function RetentionForm({ site, busy, run }: { site: Site; busy: boolean; run: ReturnType<typeof useAction>['run'] }) {
  const [days, setDays] = useState(site.retention_days === null ? '' : String(site.retention_days));
  const save = (e: Event) => {
    e.preventDefault();
    const value = days.trim() === '' ? null : Number(days);
    void run(async () => {
      await api.patch<Site>(`/manage/site/${site.id}`, { retention_days: value });
      await loadSites();
    }, value === null ? `${site.name} keeps raw data for the instance's ${site.max_retention_days} days.` : `${site.name} keeps raw data for ${value} days.`);
  };
  return (
    <form class="row-form retention-form" onSubmit={save}>
      <label for={`retention-${site.id}`}>Days <span class="sr-only">of raw data kept for {site.name}</span></label>
      <input id={`retention-${site.id}`} type="number" min={1} max={site.max_retention_days} step={1} inputMode="numeric"
        placeholder={String(site.max_retention_days)} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
      <button type="submit" disabled={busy}>Save</button>
      <span class="small"> (at most {site.max_retention_days}; empty: {site.max_retention_days})</span>
    </form>
  );
}

export function SitesSection(_: { site: string | null }) {
  const action = useAction();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const list = sites.value ?? [];
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const site = await api.post<Site>('/manage/site', { name: name.trim(), url: url.trim() });
      await loadSites();
      chooseSite(site.id);
      setName('');
      setUrl('');
    }, 'Site created.');
  };
  return (
    <>
      <h2>Sites</h2>
      {list.length === 0 ? <Empty>No sites yet.</Empty> : (
        <div class="table-scroll">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Address</th><th scope="col">Created</th><th scope="col">Raw data kept</th><th scope="col">Id</th>{canAdmin.value && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th><td>{s.url}</td><td><Time iso={s.created_at} short /></td>
                  <td>{canAdmin.value ? <RetentionForm site={s} busy={action.busy} run={action.run} /> : `${s.effective_retention_days} days`}</td>
                  <td><code class="small">{s.id}</code></td>
                  {canAdmin.value && <td><ConfirmButton label="Delete" question={`Delete ${s.name} and all its data?`} disabled={action.busy}
                    onConfirm={() => void action.run(async () => { await api.del(`/manage/site/${s.id}`); await loadSites(); }, `${s.name} deleted.`)} /></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canAdmin.value && (
        <form class="stack-form" onSubmit={create}>
          <h3>New site</h3>
          <label for="site-name">Name</label>
          <input id="site-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="site-url">Address</label>
          <input id="site-url" type="url" required placeholder="https://shop.example" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          <button type="submit" class="primary" disabled={action.busy}>Create site</button>
        </form>
      )}
      <ActionOutcome action={action} what="change the sites" />
    </>
  );
}
