// Two-factor sign-in for your own account (GET /v1/auth/2fa, POST setup, enable, recovery-codes
// and disable) and, for admins, who the org requires it of (require_2fa in
// /v1/manage/settings). Setting up shows the QR code (drawn from the server's SVG as shapes,
// under the strict CSP) and the secret for typing by hand; enabling shows ten recovery codes
// once. `enrolling`: the org requires it and the person has none yet, so this is all they can do.
import { useState } from 'preact/hooks';
import type { OrgSettings, RecoveryCodes, TwoFactorEnabled, TwoFactorSetup, TwoFactorStatus } from '../../api/types.ts';
import { api, ApiError } from '../../state/api.ts';
import { canAdmin, session, startSession } from '../../state/session.ts';
import { ActionOutcome, Async, ErrorNote, useAction, useApi } from '../../components/async.tsx';
import { Time, CopyButton } from '../../components/bits.tsx';
import { codeProblem, groupSecret, qrShape, recoveryCodesText, REQUIRE_2FA_LABELS } from '../../lib/two-factor.ts';

type Policy = keyof typeof REQUIRE_2FA_LABELS;

function Explained({ error, what }: { error: ApiError | null; what: string }) {
  if (!error) return null;
  const sentence = codeProblem(error.code);
  if (!sentence) return <ErrorNote error={error} what={what} />;
  return <p class="state error" role="alert">{sentence} <span class="code">({error.code})</span></p>;
}

function QrCode({ svg }: { svg: string }) {
  const shape = qrShape(svg);
  if (!shape) return <p class="state notice">The QR code could not be shown: type the secret below into your app instead.</p>;
  return (
    <svg class="qr" role="img" aria-label="QR code to scan with your authenticator app" viewBox={shape.viewBox} shape-rendering="crispEdges">
      {shape.paths.map((p, i) => <path key={i} d={p.d} fill={p.fill} stroke={p.stroke} />)}
    </svg>
  );
}

/** The codes shown once, with one copy button for all of them. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div class="shown-once" role="status" id="recovery-codes">
      <p><strong>Recovery codes</strong>: keep them somewhere safe now (a password manager, or on paper). Each signs you in once
        if you lose your phone. Mallard keeps only a hash of them and will not show them again.</p>
      <ol class="recovery-codes">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ol>
      <CopyButton text={recoveryCodesText(codes)} label="Copy all codes" />
    </div>
  );
}

function CodeInput({ id, value, onInput, label = 'Code from your authenticator app', recovery = false }: { id: string; value: string; onInput(v: string): void; label?: string; recovery?: boolean }) {
  return (
    <>
      <label for={id}>{label}</label>
      <input id={id} name={id} required value={value} onInput={(e) => onInput(e.currentTarget.value)}
        autoComplete="one-time-code" inputMode={recovery ? 'text' : 'numeric'} spellcheck={false} maxLength={32} />
    </>
  );
}

/** Not set up yet: start, scan, confirm; then the recovery codes. */
function Enrol({ onEnabled }: { onEnabled(codes: string[]): void }) {
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const start = useAction();
  const confirm = useAction();
  const begin = () => void start.run(async () => { setSetup(await api.post<TwoFactorSetup>('/auth/2fa/setup', undefined)); setCode(''); });
  const enable = (e: Event) => {
    e.preventDefault();
    void confirm.run(async () => {
      const result = await api.post<TwoFactorEnabled>('/auth/2fa/enable', { code });
      onEnabled(result.recovery_codes);
    });
  };
  if (!setup) {
    return (
      <>
        <p>Two-factor sign-in asks for a code from an authenticator app (1Password, Google Authenticator, Authy, Aegis…) after your
          password, so a stolen password alone does not get in.</p>
        <button type="button" class="primary" id="start-2fa" disabled={start.busy} onClick={begin}>{start.busy ? 'Starting…' : 'Set up two-factor sign-in'}</button>
        <ActionOutcome action={start} what="start the set-up" />
      </>
    );
  }
  return (
    <>
      <h3>1. Scan this code with your authenticator app</h3>
      <QrCode svg={setup.qr_svg} />
      <p class="small">Cannot scan? Add an account by hand with this key (time-based): <code id="totp-secret" data-secret={setup.secret}>{groupSecret(setup.secret)}</code>{' '}
        <CopyButton text={setup.secret} label="Copy key" /></p>
      <h3>2. Type the code it shows</h3>
      <form class="stack-form" id="enable-2fa" onSubmit={enable}>
        <CodeInput id="enable-code" value={code} onInput={setCode} />
        <button type="submit" class="primary" disabled={confirm.busy}>{confirm.busy ? 'Checking…' : 'Turn on two-factor sign-in'}</button>
      </form>
      <Explained error={confirm.error} what="turn on two-factor sign-in" />
      <p class="small"><button type="button" class="link" onClick={begin}>Start again with a new key</button></p>
    </>
  );
}

/** Already on: status, new recovery codes, turning it off. */
function Enabled({ status, reload }: { status: TwoFactorStatus; reload(): void }) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const [regenCode, setRegenCode] = useState('');
  const [password, setPassword] = useState('');
  const [offCode, setOffCode] = useState('');
  const regen = useAction();
  const off = useAction();
  const regenerate = (e: Event) => {
    e.preventDefault();
    void regen.run(async () => {
      setCodes((await api.post<RecoveryCodes>('/auth/2fa/recovery-codes', { code: regenCode })).recovery_codes);
      setRegenCode('');
    });
  };
  const disable = (e: Event) => {
    e.preventDefault();
    void off.run(async () => {
      await api.post('/auth/2fa/disable', { password, code: offCode });
      reload();
    });
  };
  return (
    <>
      <p class="state done" id="twofa-status">Two-factor sign-in is on{status.confirmed_at ? <> since <Time iso={status.confirmed_at} /></> : null}.
        {' '}{status.recovery_codes_left} recovery code{status.recovery_codes_left === 1 ? '' : 's'} left.</p>
      {codes && <RecoveryCodes codes={codes} />}
      <h3>New recovery codes</h3>
      <p class="small">Makes ten new codes; the old ones stop working.</p>
      <form class="stack-form" id="regenerate-codes" onSubmit={regenerate}>
        <CodeInput id="regenerate-code" value={regenCode} onInput={setRegenCode} label="Code from your app (or a recovery code)" recovery />
        <button type="submit" disabled={regen.busy}>{regen.busy ? 'Making…' : 'Make new recovery codes'}</button>
      </form>
      <Explained error={regen.error} what="make new recovery codes" />
      <h3>Turn off</h3>
      {status.required
        ? <p class="state notice">Your organisation requires two-factor sign-in, so it stays on. To move to a new phone, ask an admin to reset it, then set it up again.</p>
        : (
          <form class="stack-form" id="disable-2fa" onSubmit={disable}>
            <label for="disable-password">Your password</label>
            <input id="disable-password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            <CodeInput id="disable-code" value={offCode} onInput={setOffCode} label="Code from your app (or a recovery code)" recovery />
            <button type="submit" class="danger" disabled={off.busy}>{off.busy ? 'Turning off…' : 'Turn off two-factor sign-in'}</button>
          </form>
        )}
      <Explained error={off.error} what="turn off two-factor sign-in" />
    </>
  );
}

/** Admins: who the org requires two-factor sign-in of. */
function OrgPolicy() {
  const settings = useApi(() => api.get<OrgSettings>('/manage/settings'), []);
  const save = useAction();
  const change = (value: Policy) => void save.run(async () => {
    await api.patch('/manage/settings', { require_2fa: value });
    settings.reload();
  }, value === 'off' ? 'Two-factor sign-in is now each person\'s choice.' : `Two-factor sign-in is now required of ${REQUIRE_2FA_LABELS[value].toLowerCase()}. Anyone without it is asked to set it up at their next step in the dashboard.`);
  return (
    <>
      <h3>Who must use it in {session.value?.org.name}</h3>
      <Async load={settings} what="the org's settings">
        {(data) => (
          <label class="inline-field">
            <span>Required of</span>
            <select id="require-2fa" value={data.require_2fa} disabled={save.busy} onChange={(e) => change(e.currentTarget.value as Policy)}>
              {(Object.keys(REQUIRE_2FA_LABELS) as Policy[]).map((p) => <option key={p} value={p}>{REQUIRE_2FA_LABELS[p]}</option>)}
            </select>
          </label>
        )}
      </Async>
      <ActionOutcome action={save} what="change who must use two-factor sign-in" />
    </>
  );
}

export function TwoFactorSection({ enrolling = false }: { site?: string | null; enrolling?: boolean }) {
  const status = useApi(() => api.get<TwoFactorStatus>('/auth/2fa'), []);
  const [codes, setCodes] = useState<string[] | null>(null);
  const finishEnrolment = () => {
    const s = session.value;
    if (s) {
      const { mfa_enrolment_required: _done, ...rest } = s;
      startSession(rest);
    }
  };
  return (
    <>
      <h2>Two-factor sign-in</h2>
      {codes ? (
        <>
          <p class="state done" role="status" id="twofa-enabled">Two-factor sign-in is on. From your next sign-in Mallard asks for a code from your app.</p>
          <RecoveryCodes codes={codes} />
          {enrolling
            ? <p><button type="button" class="primary" id="finish-enrolment" onClick={finishEnrolment}>I have kept my recovery codes: continue to Mallard</button></p>
            : <p><button type="button" onClick={() => { setCodes(null); status.reload(); }}>Done</button></p>}
        </>
      ) : (
        <Async load={status} what="your two-factor sign-in">
          {(data) => (data.enabled ? <Enabled status={data} reload={status.reload} /> : <Enrol onEnabled={setCodes} />)}
        </Async>
      )}
      {canAdmin.value && !enrolling && <OrgPolicy />}
    </>
  );
}

/** The whole app while the org requires two-factor sign-in of someone who has not set it up. */
export function MfaEnrolmentScreen({ onSignOut }: { onSignOut(): void }) {
  const s = session.value!;
  return (
    <>
      <header class="top">
        <span class="brand"><span class="logo" aria-hidden="true" /> Mallard</span>
        <span class="who"><span class="email">{s.user.email}</span> <span class={`badge role role-${s.role}`}>{s.role}</span></span>
        <button type="button" class="sign-out" onClick={onSignOut}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1} class="screen enrolment">
        <h1>Set up two-factor sign-in</h1>
        <p class="state notice" id="enrolment-required">{s.org.name} requires two-factor sign-in for your account. Set it up below to continue:
          it takes a minute and an authenticator app on your phone. Until then Mallard shows you nothing else.</p>
        <section class="card" aria-label="Two-factor sign-in"><TwoFactorSection enrolling /></section>
      </main>
    </>
  );
}
