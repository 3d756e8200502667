// Sign in with email and password (POST /v1/auth/session: the server sets the HttpOnly session
// cookie). A wrong password gets a plain message.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import { endedBecause, startSession } from '../state/session.ts';
import { SsoSignIn } from '../components/sso-sign-in.tsx';
import { ssoRequiredStart } from '../lib/sso.ts';

function explain(err: ApiError): string {
  if (err.code === 'invalid_credentials') return 'That email and password do not match an account. Check both and try again.';
  if (err.code === 'rate_limited') return 'Too many sign-in attempts. Wait a minute and try again.';
  return err.message;
}

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      startSession(await api.signIn(email.trim(), password));
    } catch (err) {
      // A member of an org that requires single sign-on is sent to it.
      const sso = err instanceof ApiError ? ssoRequiredStart(err.code, err.details) : null;
      if (sso) { location.assign(sso); return; }
      setError(err instanceof ApiError ? err : new ApiError('client_error', String(err), 0));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1><span class="logo" aria-hidden="true" /> Mallard</h1>
      <p class="lede">See where your users struggle.</p>
      {endedBecause.value && !error && <p class="state notice" role="status">{endedBecause.value}</p>}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        {error && <p class="state error" id="sign-in-error" role="alert">{explain(error)} <span class="code">({error.code})</span></p>}
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <SsoSignIn />
      <p class="muted small">You stay signed in for 30 minutes without use and at most 12 hours. The first start of Mallard printed a demo login.</p>
    </main>
  );
}
