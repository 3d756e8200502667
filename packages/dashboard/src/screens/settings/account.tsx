// Your own account: who you are signed in as, and a password change (POST
// /v1/auth/change-password), which signs out every other browser and ends earlier user tokens;
// this browser stays signed in on a new session.
import { useState } from 'preact/hooks';
import { PASSWORD_MIN } from '../../lib/password.ts';
import type { PasswordChanged } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { session, startSession } from '../../state/session.ts';
import { ActionOutcome, useAction } from '../../components/async.tsx';


export function AccountSection(_: { site: string | null }) {
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const s = session.value;
  const mismatch = again !== '' && next !== again;
  const change = (e: Event) => {
    e.preventDefault();
    if (next !== again) return;
    void action.run(async () => {
      const result = await api.post<PasswordChanged>('/auth/change-password', { current_password: current, password: next });
      if (result.session) startSession(result.session);
      setCurrent('');
      setNext('');
      setAgain('');
    }, 'Password changed. Every other browser signed in as you is signed out; this one stays signed in.');
  };
  return (
    <>
      <h2>Your account</h2>
      {s && <p>Signed in as <strong>{s.user.email}</strong>, {s.role} of {s.org.name}.</p>}
      <h3>Change password</h3>
      <form class="stack-form" id="change-password" onSubmit={change}>
        <label for="current-password">Current password</label>
        <input id="current-password" type="password" autoComplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
        <label for="new-password">New password <span class="small">(at least {PASSWORD_MIN} characters)</span></label>
        <input id="new-password" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} value={next} onInput={(e) => setNext(e.currentTarget.value)} />
        <label for="new-password-again">New password again</label>
        <input id="new-password-again" type="password" autoComplete="new-password" required minLength={PASSWORD_MIN} value={again}
          aria-invalid={mismatch} aria-describedby={mismatch ? 'password-mismatch' : undefined} onInput={(e) => setAgain(e.currentTarget.value)} />
        {mismatch && <p class="state error" id="password-mismatch" role="alert">The two new passwords differ.</p>}
        <button type="submit" class="primary" disabled={action.busy || mismatch}>{action.busy ? 'Changing…' : 'Change password'}</button>
      </form>
      <ActionOutcome action={action} what="change your password" />
    </>
  );
}
