// "Sign in with SSO" on the sign-in screen: asks for the email address, then sends the browser to
// the server's start (which goes on to the organisation's identity provider and back). A sign-in
// that failed comes back as #/sign-in?sso_error=<code>, shown here in plain words.
import { useState } from 'preact/hooks';
import { route } from '../state/router.ts';
import { signInReturn, ssoErrorMessage, ssoStartUrl } from '../lib/sso.ts';

export function SsoSignIn() {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const failed = route.value.query.get('sso_error');
  const start = (e: Event) => {
    e.preventDefault();
    location.assign(ssoStartUrl(email, signInReturn(location.hash)));
  };
  return (
    <div class="sso-sign-in">
      {failed && <p class="state error" id="sso-error" role="alert">{ssoErrorMessage(failed)} <span class="code">({failed})</span></p>}
      {!open ? <button type="button" id="sso-open" onClick={() => setOpen(true)}>Sign in with SSO</button> : (
        <form onSubmit={start} aria-label="Sign in with single sign-on">
          <label for="sso-email">Work email</label>
          <input id="sso-email" name="sso-email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button type="submit" class="primary">Continue with SSO</button>
        </form>
      )}
    </div>
  );
}
