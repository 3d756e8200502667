// Sign in with email and password (POST /v1/auth/session: the server sets the HttpOnly session
// cookie). A wrong password gets a plain message.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import { endedBecause, startSession } from '../state/session.ts';
import { SsoSignIn } from '../components/sso-sign-in.tsx';
import { OtpStep, type OtpMethod } from '../components/otp-step.tsx';
import { signInReturn, ssoRequiredStart, withReturn } from '../lib/sso.ts';
import { route } from '../state/router.ts';

function explain(err: ApiError): string {
  if (err.code === 'invalid_credentials') return 'That email and password do not match an account. Check both and try again.';
  if (err.code === 'invalid_otp') return 'That code is not right, was already used or has expired. Try the code your app shows now.';
  if (err.code === 'account_locked') return 'Too many failed attempts for this account. Wait a while, or ask an admin to unlock it.';
  if (err.code === 'rate_limited') return 'Too many sign-in attempts. Wait a minute and try again.';
  return err.message;
}

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  // The second step, once the server asked for a code (mfa_required): null before it.
  const [otpMethod, setOtpMethod] = useState<OtpMethod | null>(null);
  const [otp, setOtp] = useState('');

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      startSession(await api.signIn(email.trim(), password, otpMethod ? { otp } : {}));
    } catch (err) {
      // Two-factor sign-in: the password was right; ask for the code, keeping email and password.
      if (err instanceof ApiError && err.code === 'mfa_required') { setOtpMethod('totp'); setOtp(''); return; }
      // A member of an org that requires single sign-on is sent to it.
      const sso = err instanceof ApiError ? ssoRequiredStart(err.code, err.details) : null;
      if (sso) { location.assign(withReturn(sso, signInReturn(location.hash))); return; }
      setError(err instanceof ApiError ? err : new ApiError('client_error', String(err), 0));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1><span class="logo" aria-hidden="true" /> Mallard</h1>
      <p class="lede">{route.value.path[0] === 'oauth' ? 'Sign in to connect an application to Mallard.' : 'See where your users struggle.'}</p>
      {endedBecause.value && !error && <p class="state notice" role="status">{endedBecause.value}</p>}
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        {otpMethod === null ? <>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </> : <OtpStep email={email.trim()} method={otpMethod} value={otp} onInput={setOtp}
          onMethod={(m) => { setOtpMethod(m); setOtp(''); setError(null); }}
          onBack={() => { setOtpMethod(null); setOtp(''); setPassword(''); setError(null); }} />}
        {error && <p class="state error" id="sign-in-error" role="alert">{explain(error)} <span class="code">({error.code})</span></p>}
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : otpMethod ? 'Verify and sign in' : 'Sign in'}</button>
      </form>
      <SsoSignIn />
      <p class="small"><a href="#/set-password">Have an invitation? Choose your password</a></p>
      <p class="muted small">You stay signed in for 30 minutes without use and at most 12 hours. The first start of Mallard printed a demo login.</p>
    </main>
  );
}
