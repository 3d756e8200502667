import { useState } from 'preact/hooks';
import type { ApiKeyList, NewApiKey } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Badge, Time } from '../../components/bits.tsx';
import { Checkboxes, ConfirmButton, ShownOnce } from '../../components/forms.tsx';

const SCOPES = ['ingest:write', 'query:read', 'manage:write', 'mcp:read', 'webhook:write'] as const;

export function KeysSection({ site }: { site: string | null }) {
  if (!canAdmin.value) return <><h2>API keys</h2><p class="muted">Only admins and owners list and create keys.</p></>;
  return <KeysAdmin site={site} />;
}

function KeysAdmin({ site }: { site: string | null }) {
  const keys = useApi(() => api.get<ApiKeyList>('/manage/keys', { site_id: site }), [site]);
  const action = useAction();
  const [type, setType] = useState('secret');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['query:read']);
  const [created, setCreated] = useState<string | null>(null);
  const create = (e: Event) => {
    e.preventDefault();
    setCreated(null);
    void action.run(async () => {
      const body: Record<string, unknown> = { key_type: type, site_id: site };
      if (name.trim()) body.name = name.trim();
      if (type === 'secret') body.scopes = scopes;
      const key = await api.post<NewApiKey>('/manage/keys', body);
      setCreated(key.key);
      keys.reload();
    });
  };
  return (
    <>
      <h2>API keys of this site</h2>
      <Async load={keys} what="keys">
        {(k) => k.keys.length === 0 ? <Empty>No keys.</Empty> : (
          <div class="table-scroll">
            <table>
              <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {k.keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row">{key.name ?? 'unnamed'}</th><td>{key.key_type}</td><td><code>{key.key_hint}</code></td><td class="small">{key.scopes.join(', ')}</td>
                    <td><Badge kind="status" value={key.status} />{key.expires_at && <span class="small muted"> {key.status === 'expired' ? 'since' : 'until'} <Time iso={key.expires_at} short /></span>}</td>
                    <td><Time iso={key.created_at} short /></td>
                    <td><ConfirmButton label="Revoke" question={`Revoke ${key.key_hint}? Anything using it stops at once.`} disabled={action.busy}
                      onConfirm={() => void action.run(async () => { await api.del(`/manage/keys/${key.id}`); keys.reload(); }, 'Key revoked.')} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      <form class="stack-form" onSubmit={create}>
        <h3>New key for this site</h3>
        <label for="key-type">Type</label>
        <select id="key-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="secret">secret (servers and scripts)</option>
          <option value="mcp">mcp (AI assistants, read-only)</option>
          <option value="publishable">publishable (the browser SDK)</option>
        </select>
        <label for="key-name">Name</label>
        <input id="key-name" maxLength={200} placeholder="what uses it" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        {type === 'secret' && <Checkboxes legend="Scopes" options={SCOPES} chosen={scopes} onChange={setScopes} />}
        <button type="submit" class="primary" disabled={action.busy || (type === 'secret' && scopes.length === 0)}>Create key</button>
      </form>
      {created && <ShownOnce label="The new key" value={created} />}
      <ActionOutcome action={action} what="change the keys" />
    </>
  );
}
