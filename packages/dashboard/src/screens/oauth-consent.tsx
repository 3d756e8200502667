// The OAuth consent screen (#/oauth/consent?uid=...): where Mallard's authorization server sends
// the browser when an assistant asks to connect to the MCP endpoint. The signed-in person (the
// app shows sign-in first, and comes back here) sees the application's name and where the code
// goes, picks the org, one site or all of its sites, and read or read-and-write, then approves
// or denies; the answer is the address to continue to (back through the server to the app).
import { useEffect, useState } from 'preact/hooks';
import type { ConsentAnswer } from '../api/types.ts';
import { api, ApiError } from '../state/api.ts';
import { session } from '../state/session.ts';
import { useApi, ErrorNote, Loading } from '../components/async.tsx';
import { Time } from '../components/bits.tsx';
import { approveBody, initialChoice, redirectSummary, withOrg, type Choice, type ConsentDetails } from '../lib/oauth-consent.ts';

function explain(error: ApiError): string {
  if (error.code === 'invalid_input' && error.details?.field === 'uid') return 'This sign-in request has expired or was started in another browser. Start again from the application.';
  return error.message;
}

export function OAuthConsentScreen({ uid }: { uid: string }) {
  const details = useApi(() => api.get<ConsentDetails>(`/auth/oauth/interaction/${encodeURIComponent(uid)}/details`), [uid]);
  useEffect(() => { document.title = 'Mallard · Connect an application'; }, []);
  return (
    <main class="sign-in consent" id="main">
      <h1><span class="logo" aria-hidden="true" /> Mallard</h1>
      {details.state === 'loading' ? <Loading what="the request" />
        : details.state === 'error' ? <p class="state error" role="alert">{explain(details.error)} <span class="code">({details.error.code})</span></p>
        : <ConsentForm uid={uid} details={details.data} />}
    </main>
  );
}

function ConsentForm({ uid, details }: { uid: string; details: ConsentDetails }) {
  const [choice, setChoice] = useState<Choice>(() => initialChoice(details, session.value?.org.id ?? null));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const org = details.orgs.find((o) => o.id === choice.org);
  const name = details.client.name ?? 'An application that gave no name';

  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const path = `/auth/oauth/interaction/${encodeURIComponent(uid)}/${approve ? 'approve' : 'deny'}`;
      const { redirect_to } = await api.post<ConsentAnswer>(path, approve ? approveBody(choice) : {});
      // Back through the authorization server to the application, with the code (or the refusal).
      location.assign(redirect_to);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError('client_error', String(err), 0));
      setBusy(false);
    }
  };

  if (!org) return <p class="state empty">You belong to no org yet, so there is nothing to connect. <button type="button" onClick={() => void decide(false)} disabled={busy}>Deny</button></p>;
  return (
    <form onSubmit={(e) => { e.preventDefault(); void decide(true); }} aria-describedby={error ? 'consent-error' : undefined}>
      <p class="lede"><strong>{name}</strong> wants to use Mallard's assistant tools (MCP) as you, {session.value?.user.email}.</p>
      <p class="small">Its sign-in goes back to <strong>{redirectSummary(details.client.redirect_uri)}</strong>: <code>{details.client.redirect_uri}</code>. The name is the application's own claim: approve only if you just started this from it.</p>
      <label for="consent-org">Org</label>
      <select id="consent-org" value={choice.org} onChange={(e) => setChoice(withOrg(details, choice, e.currentTarget.value))}>
        {details.orgs.map((o) => <option key={o.id} value={o.id}>{o.name} ({o.role})</option>)}
      </select>
      <label for="consent-site">Sites</label>
      <select id="consent-site" value={choice.site} onChange={(e) => setChoice({ ...choice, site: e.currentTarget.value })}>
        <option value="">Every site of {org.name}</option>
        {org.sites.map((s) => <option key={s.id} value={s.id}>{s.name} only ({s.url})</option>)}
      </select>
      <fieldset class="checks">
        <legend>Access</legend>
        <label><input type="radio" name="consent-access" value="read" checked={choice.access === 'read'} onChange={() => setChoice({ ...choice, access: 'read' })} /> Read: scores, issues, alerts, deploys, sessions</label>
        <label><input type="radio" name="consent-access" value="write" disabled={!org.may_write} checked={choice.access === 'write'} onChange={() => setChoice({ ...choice, access: 'write' })} /> Read and write: also update issues and alerts{org.may_write ? '' : ' (needs the role member or higher)'}</label>
      </fieldset>
      <p class="muted small">Access lasts while the application keeps using it; revoke it any time in Settings → MCP set-up. This request expires <Time iso={details.expires_at} relative />.</p>
      {error && <ErrorNote error={error} what={`${approveLabel(choice)}`} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>Approve</button>
        <button type="button" onClick={() => void decide(false)} disabled={busy}>Deny</button>
      </div>
    </form>
  );
}

const approveLabel = (choice: Choice) => (choice.access === 'write' ? 'approve read and write' : 'approve read access');
