import { useState } from 'preact/hooks';
import type { MemberList, NewMember, TwoFactorReset } from '../../api/types.ts';
import { api } from '../../state/api.ts';
import { canAdmin, session } from '../../state/session.ts';
import { ActionOutcome, Async, useAction, useApi } from '../../components/async.tsx';
import { Badge } from '../../components/bits.tsx';
import { ConfirmButton, ShownOnce } from '../../components/forms.tsx';

const ROLES = ['viewer', 'member', 'admin', 'owner'];

export function MembersSection(_: { site: string | null }) {
  const members = useApi(() => api.get<MemberList>('/manage/members'), []);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [invite, setInvite] = useState<{ token: string; emailed: boolean } | null>(null);
  const [resetNote, setResetNote] = useState<string | null>(null);
  const admin = canAdmin.value;
  const add = (e: Event) => {
    e.preventDefault();
    setInvite(null);
    void action.run(async () => {
      const m = await api.post<NewMember>('/manage/members', { email: email.trim(), role });
      if (m.invitation) setInvite({ token: m.invitation.token, emailed: m.invitation.emailed === true });
      setEmail('');
      members.reload();
    }, 'Member added.');
  };
  return (
    <>
      <h2>Members of {session.value?.org.name}</h2>
      <Async load={members} what="members">
        {(l) => (
          <div class="table-scroll">
            <table>
              <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th>{admin && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
              <tbody>
                {l.members.map((m) => (
                  <tr key={m.id}>
                    <th scope="row">{m.email}</th>
                    <td>{admin ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} disabled={action.busy}
                        onChange={(e) => { const next = e.currentTarget.value; void action.run(async () => { await api.patch(`/manage/members/${m.id}`, { role: next }); members.reload(); }, `${m.email} is now ${next}.`); }}>
                        {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                      </select>
                    ) : <Badge kind="status" value={m.role} />}</td>
                    <td>{m.status}</td>
                    {admin && <td class="actions"><ConfirmButton label="Remove" question={`Remove ${m.email} from the org?`} disabled={action.busy}
                      onConfirm={() => void action.run(async () => { await api.del(`/manage/members/${m.id}`); members.reload(); }, `${m.email} removed.`)} />
                      {' '}{/* A lost phone: clears their two-factor sign-in (only an owner resets an owner's; the API says so). */}
                      <ConfirmButton label="Reset two-factor" question={`Clear two-factor sign-in for ${m.email}? They sign in with their password alone until they set it up again.`} disabled={action.busy}
                        onConfirm={() => { setResetNote(null); void action.run(async () => {
                          const r = await api.post<TwoFactorReset>(`/manage/members/${m.id}/reset-2fa`, undefined);
                          setResetNote(r.was_enabled
                            ? `Two-factor sign-in cleared for ${m.email}: they sign in with their password and set it up again.`
                            : `${m.email} had no two-factor sign-in; nothing changed.`);
                        }); }} /></td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      {resetNote && <p class="state done" role="status" id="reset-2fa-outcome">{resetNote}</p>}
      {admin && (
        <form class="stack-form" onSubmit={add}>
          <h3>Add a member</h3>
          <label for="member-email">Email</label>
          <input id="member-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <label for="member-role">Role</label>
          <select id="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>{ROLES.map((r) => <option key={r} value={r}>{r}</option>)}</select>
          <button type="submit" class="primary" disabled={action.busy}>Add member</button>
        </form>
      )}
      {invite && (
        <>
          <ShownOnce label="Their invitation token (valid 7 days, usable once)" value={invite.token} />
          <p class="small">{invite.emailed ? 'It was also e-mailed to them. ' : 'Send it to them: no e-mail was sent. '}
            They open <code>{`${location.origin}/app/#/set-password`}</code>, paste it and choose a password.</p>
        </>
      )}
      <ActionOutcome action={action} what="change the members" />
    </>
  );
}
