// Redeem an invitation (or a password reset): paste the one-time token from the e-mail or the
// admin, choose a password (POST /v1/auth/set-password), and be signed in. The token is typed
// or pasted, never carried in the address (router.ts: nothing secret goes there).
import { useState } from 'preact/hooks';
import { PASSWORD_MIN } from '../lib/password.ts';
import type { PasswordSet } from '../api/types.ts';
import { api, ApiError } from '../state/api.ts';
import { navigate, href } from '../state/router.ts';
import { startSession } from '../state/session.ts';


function explain(err: ApiError): string {
  if (err.code === 'invalid_input' && err.details?.field === 'token') return 'That token is not valid: it may be mistyped, already used or expired (invitations last 7 days). Ask an admin for a new one.';
  return err.message;
}

export function SetPassword() {
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const mismatch = again !== '' && password !== again;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (password !== again) return;
    setBusy(true);
    setError(null);
    try {
      const { user } = await api.post<PasswordSet>('/auth/set-password', { token: token.trim(), password });
      startSession(await api.signIn(user.email, password));
      navigate(href());
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError('client_error', String(err), 0));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1><span class="logo" aria-hidden="true" /> Mallard</h1>
      <p class="lede">Choose your password</p>
      <p class="muted small">Paste the token from your invitation e-mail (or the one your admin sent you). It works once.</p>
      <form onSubmit={submit} aria-describedby={error ? 'set-password-error' : undefined}>
        <label for="invite-token">Invitation token</label>
        <input id="invite-token" name="token" autoComplete="off" spellcheck={false} required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <label for="set-password">Password <span class="small">(at least {PASSWORD_MIN} characters)</span></label>
        <input id="set-password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <label for="set-password-again">Password again</label>
        <input id="set-password-again" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} value={again}
          aria-invalid={mismatch} onInput={(e) => setAgain(e.currentTarget.value)} />
        {mismatch && <p class="state error" role="alert">The two passwords differ.</p>}
        {error && <p class="state error" id="set-password-error" role="alert">{explain(error)} <span class="code">({error.code})</span></p>}
        <button type="submit" class="primary" disabled={busy || mismatch}>{busy ? 'Setting…' : 'Set password and sign in'}</button>
      </form>
      <p class="small"><a href={href()}>Back to sign-in</a></p>
    </main>
  );
}
