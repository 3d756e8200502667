// The signed-in person: the token from POST /v1/auth/login, kept for this tab only
// (sessionStorage, never localStorage or a URL), cleared on sign-out, on any 401 and when it expires.
import { computed, signal } from '@preact/signals';

export type Role = 'viewer' | 'member' | 'admin' | 'owner';
export interface Session {
  token: string;
  expires_at: string;
  user: { id: string; email: string };
  org: { id: string; name: string };
  role: Role;
}

const KEY = 'mallard.session';
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

function stored(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && Date.parse(s.expires_at) > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(stored());
/** Why the last session ended, shown on the sign-in screen. */
export const endedBecause = signal<string | null>(null);

let expiry: ReturnType<typeof setTimeout> | undefined;
function watchExpiry(s: Session | null) {
  clearTimeout(expiry);
  // setTimeout holds at most ~24.8 days; tokens live at most 24 hours.
  if (s) expiry = setTimeout(() => endSession('Your session expired. Sign in again.'), Math.max(0, Date.parse(s.expires_at) - Date.now()));
}
watchExpiry(session.value);

export function startSession(s: Session) {
  sessionStorage.setItem(KEY, JSON.stringify(s));
  endedBecause.value = null;
  session.value = s;
  watchExpiry(s);
}

export function endSession(reason: string | null = null) {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem('mallard.site');
  endedBecause.value = reason;
  session.value = null;
  watchExpiry(null);
}

const atLeast = (role: Role) => computed(() => session.value !== null && RANK[session.value.role] >= RANK[role]);
/** Members and up change issues and alerts. The API checks every write anyway; hiding a button is a courtesy. */
export const canTriage = atLeast('member');
/** Admins and up change settings. */
export const canAdmin = atLeast('admin');
