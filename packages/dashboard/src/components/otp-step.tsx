// The sign-in's second step for an account with two-factor sign-in (the server answered
// mfa_required): a code from the authenticator app, or a recovery code instead. The email and
// password stay in the sign-in form's state and are sent again with the code.
export type OtpMethod = 'totp' | 'recovery';

export function OtpStep({ email, method, value, onInput, onMethod, onBack }: {
  email: string; method: OtpMethod; value: string; onInput(v: string): void; onMethod(m: OtpMethod): void; onBack(): void;
}) {
  const totp = method === 'totp';
  return (
    <>
      <p id="otp-explained">{totp
        ? <>Signing in as <strong>{email}</strong>. Open your authenticator app and type the 6-digit code it shows for Mallard.</>
        : <>Signing in as <strong>{email}</strong>. Type one of the recovery codes you kept when you set up two-factor sign-in; each works once.</>}</p>
      <label for="otp">{totp ? 'Code from your authenticator app' : 'Recovery code'}</label>
      {/* A new key per method: the browser's one-time-code autofill only for the app's code. */}
      <input key={method} id="otp" name="otp" required autoFocus value={value} onInput={(e) => onInput(e.currentTarget.value)}
        autoComplete={totp ? 'one-time-code' : 'off'} inputMode={totp ? 'numeric' : 'text'} spellcheck={false} maxLength={32}
        placeholder={totp ? '123 456' : 'xxxx-xxxx'} aria-describedby="otp-explained" />
      <p class="small">
        <button type="button" class="link" id="otp-method" onClick={() => onMethod(totp ? 'recovery' : 'totp')}>
          {totp ? 'Lost your phone? Use a recovery code' : 'Use a code from your authenticator app'}
        </button>
        {' · '}
        <button type="button" class="link" onClick={onBack}>Use another account</button>
      </p>
    </>
  );
}
