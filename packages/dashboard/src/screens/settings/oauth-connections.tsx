// The applications connected over OAuth (an assistant that signed in instead of using a key):
// yours, and for admins everyone's in the org, each with its scope, when it was approved and
// last used, and Revoke (its access and refresh tokens stop at once).
import type { OAuthConnectionList } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { sites } from '../../state/site.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../../components/async.tsx';
import { Time } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';

const siteName = (id: string | null) => (id === null ? 'every site' : sites.value?.find((s) => s.id === id)?.name ?? 'a deleted site');

function ConnectionTable({ path, revokePath, showUser, what }: { path: string; revokePath: string; showUser: boolean; what: string }) {
  const list = useApi(() => api.get<OAuthConnectionList>(path), [path]);
  const action = useAction();
  return (
    <>
      <Async load={list} what={what}>
        {(d) => d.connections.length === 0 ? <Empty>None.</Empty> : (
          <div class="table-scroll">
            <table>
              <thead><tr><th scope="col">Application</th>{showUser && <th scope="col">Person</th>}<th scope="col">Sites</th><th scope="col">Access</th><th scope="col">Approved</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {d.connections.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">{c.client_name}<div class="small muted"><code>{c.redirect_uri}</code></div></th>
                    {showUser && <td>{c.user.email}</td>}
                    <td>{siteName(c.site_id)}</td>
                    <td>{c.access === 'write' ? 'read and write' : 'read'}</td>
                    <td><Time iso={c.created_at} short /></td>
                    <td><Time iso={c.last_used_at} relative /></td>
                    <td><ConfirmButton label="Revoke" question={`Revoke ${c.client_name}? It stops at once and must sign in again.`} disabled={action.busy}
                      onConfirm={() => void action.run(async () => { await api.del(`${revokePath}/${c.id}`); list.reload(); }, 'Connection revoked.')} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      <ActionOutcome action={action} what="revoke the connection" />
    </>
  );
}

export function OAuthConnections() {
  return (
    <>
      <h3>Your connected applications</h3>
      <ConnectionTable path="/auth/oauth/connections" revokePath="/auth/oauth/connections" showUser={false} what="your connected applications" />
      {canAdmin.value && (
        <>
          <h3>Everyone's connected applications in this org</h3>
          <ConnectionTable path="/manage/oauth-connections" revokePath="/manage/oauth-connections" showUser what="the org's connected applications" />
        </>
      )}
    </>
  );
}
