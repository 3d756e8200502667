// The signed-in person. The credential is the server's HttpOnly `mallard_session` cookie, which
// no script here can read; this tab keeps only who is signed in and the session's CSRF token,
// in memory. A reload asks the server (GET /v1/auth/session); a 401 ends the session here too.
// The session is GET /v1/auth/session's record: expires_at slides while used, up to
// absolute_expires_at; csrf_token goes with every write; mfa_enrolment_required says the org
// requires two-factor sign-in and this person has not set it up yet.
import { computed, signal } from '@preact/signals';
import type { Role, Session } from '../api/types.ts';

export type { Role, Session };

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const session = signal<Session | null>(null);
/** True until the first answer of GET /v1/auth/session: whether the cookie still signs someone in. */
export const restoring = signal(true);
/** Why the last session ended, shown on the sign-in screen. */
export const endedBecause = signal<string | null>(null);

let expiry: ReturnType<typeof setTimeout> | undefined;
function watchExpiry(s: Session | null) {
  clearTimeout(expiry);
  // setTimeout holds at most ~24.8 days; sessions live at most 12 hours.
  if (s) expiry = setTimeout(() => endSession('Your session expired. Sign in again.'), Math.max(0, Date.parse(s.absolute_expires_at) - Date.now()));
}

export function startSession(s: Session) {
  endedBecause.value = null;
  restoring.value = false;
  session.value = s;
  watchExpiry(s);
}

export function endSession(reason: string | null = null) {
  sessionStorage.removeItem('mallard.site');
  endedBecause.value = reason;
  restoring.value = false;
  session.value = null;
  watchExpiry(null);
}

const atLeast = (role: Role) => computed(() => session.value !== null && RANK[session.value.role] >= RANK[role]);
/** Members and up change issues and alerts. The API checks every write anyway; hiding a button is a courtesy. */
export const canTriage = atLeast('member');
/** Admins and up change settings. */
export const canAdmin = atLeast('admin');
