// Single sign-on: an admin connects the organisation's OpenID Connect provider (Okta, Google,
// Keycloak, Entra ID...). The client secret is write-only: the API never returns it, so the
// field stays empty and an empty field keeps the stored one. The callback URL to register at the
// provider is shown beside the form.
import { useEffect, useState } from 'preact/hooks';
import type { SsoConnection } from '../../api/types.ts';
import { api, ApiError } from '../../state/api.ts';
import { canAdmin } from '../../state/session.ts';
import { ActionOutcome, ErrorNote, Loading, useAction, useApi } from '../../components/async.tsx';
import { CopyButton } from '../../components/bits.tsx';
import { ConfirmButton } from '../../components/forms.tsx';
import { parseDomains } from '../../lib/sso.ts';

const JIT_ROLES = ['viewer', 'member', 'admin'];

/** The connection, or null when none is set up (the API's 404 `sso_not_configured`). */
async function loadConnection(): Promise<SsoConnection | null> {
  try {
    return await api.get<SsoConnection>('/manage/sso');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'sso_not_configured') return null;
    throw err;
  }
}

export function SsoSection(_: { site: string | null }) {
  if (!canAdmin.value) return <><h2>Single sign-on</h2><p class="state notice">Admins and owners set up single sign-on.</p></>;
  return <SsoForm />;
}

function SsoForm() {
  const current = useApi(loadConnection, []);
  const action = useAction();
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [jit, setJit] = useState(false);
  const [role, setRole] = useState('viewer');
  const [required, setRequired] = useState(false);
  const [enabled, setEnabled] = useState(true);
  const connection = current.state === 'ok' ? current.data : null;
  useEffect(() => {
    if (!connection) return;
    setIssuer(connection.issuer);
    setClientId(connection.client_id);
    setSecret('');
    setDomains(connection.email_domains.join('\n'));
    setJit(connection.jit);
    setRole(connection.default_role);
    setRequired(connection.required);
    setEnabled(connection.enabled);
  }, [connection]);

  if (current.state === 'loading') return <Loading what="the single sign-on connection" />;
  if (current.state === 'error') return <ErrorNote error={current.error} what="load the single sign-on connection" retry={current.reload} />;
  const callbackUrl = connection?.callback_url ?? `${location.origin}/v1/auth/sso/callback`;

  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await api.put<SsoConnection>('/manage/sso', {
        issuer: issuer.trim(), client_id: clientId.trim(), ...(secret ? { client_secret: secret } : {}),
        email_domains: parseDomains(domains), jit, default_role: role, required, enabled,
      });
      current.reload();
    }, connection ? 'Single sign-on updated.' : 'Single sign-on connected.');
  };
  return (
    <>
      <h2>Single sign-on</h2>
      <p>Members sign in through your OpenID Connect provider. Register this callback (redirect) URL at the provider:</p>
      <p><code id="sso-callback-url">{callbackUrl}</code> <CopyButton text={callbackUrl} /></p>
      {!connection && <p class="small muted">Not connected yet. The URL comes from MALLARD_PUBLIC_URL; the server shows its own once connected.</p>}
      <form class="stack-form" onSubmit={save}>
        <label for="sso-issuer">Issuer URL</label>
        <input id="sso-issuer" type="url" required maxLength={500} placeholder="https://login.example.com" value={issuer} onInput={(e) => setIssuer(e.currentTarget.value)} />
        <label for="sso-client-id">Client ID</label>
        <input id="sso-client-id" required maxLength={255} value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
        <label for="sso-client-secret">Client secret</label>
        <input id="sso-client-secret" type="password" autoComplete="off" maxLength={1000} required={!connection}
          placeholder={connection ? 'Stored; leave empty to keep it' : ''} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
        <label for="sso-domains">Email domains (one per line)</label>
        <textarea id="sso-domains" rows={2} class="mono" placeholder="shop.example" value={domains} onInput={(e) => setDomains(e.currentTarget.value)} />
        <label class="check"><input id="sso-jit" type="checkbox" checked={jit} onChange={(e) => setJit(e.currentTarget.checked)} /> Add people at these domains as members on their first sign-in</label>
        <label for="sso-role">Their role</label>
        <select id="sso-role" value={role} disabled={!jit} onChange={(e) => setRole(e.currentTarget.value)}>
          {JIT_ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
        </select>
        <label class="check"><input id="sso-required" type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} /> Require single sign-on (owners keep their password as a way in when the provider is down)</label>
        <label class="check"><input id="sso-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled</label>
        <button type="submit" class="primary" disabled={action.busy}>{connection ? 'Save' : 'Connect'}</button>
      </form>
      {connection && <p><ConfirmButton label="Disconnect" question="Remove single sign-on? Members sign in with passwords again." disabled={action.busy}
        onConfirm={() => void action.run(async () => { await api.del('/manage/sso'); current.reload(); }, 'Single sign-on removed.')} /></p>}
      <ActionOutcome action={action} what="change single sign-on" />
    </>
  );
}
