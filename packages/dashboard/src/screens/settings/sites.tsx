import { useState } from 'preact/hooks';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { chooseSite, loadSites, sites } from '../../state/site.ts';
import type { Site } from '../../state/types.ts';
import { ActionOutcome, Empty, useAction } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';

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
            <thead><tr><th scope="col">Name</th><th scope="col">Address</th><th scope="col">Created</th><th scope="col">Id</th>{canAdmin.value && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th><td>{s.url}</td><td><Time iso={s.created_at} short /></td><td><code class="small">{s.id}</code></td>
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
