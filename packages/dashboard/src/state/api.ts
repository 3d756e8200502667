// The only way the dashboard talks to Mallard: the public API under /v1, signed in by the
// session cookie the browser sends by itself (same origin), every write with the session's CSRF
// token. Errors keep the API's code so screens can say it; a 401 ends the session.
import type { Data, SignedOut } from '../api/types.ts';
import { endSession, restoring, session, startSession } from './session.ts';

export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly status: number, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const search = params.toString();
  return `/v1${path}${search ? `?${search}` : ''}`;
}

interface Envelope<T> { data: T | null; error: { code: string; message: string; status: number; details?: Record<string, unknown> } | null }

async function request<T>(method: string, path: string, query: Query, body: unknown, csrf: string | null): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(apiUrl(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
  } catch {
    throw new ApiError('network_error', 'Could not reach the Mallard server. Check that it is running.', 0);
  }
  let envelope: Envelope<T>;
  try {
    envelope = await res.json() as Envelope<T>;
  } catch {
    throw new ApiError('bad_response', `The server answered ${res.status} without a readable body.`, res.status);
  }
  if (envelope.error) {
    const { code, message, status, details } = envelope.error;
    if (res.status === 401 && session.value) endSession(`You were signed out: ${message} (${code}).`);
    // The org began requiring two-factor sign-in meanwhile: the app shows the enrolment screen.
    if (code === 'mfa_enrolment_required' && session.value && !session.value.mfa_enrolment_required) session.value = { ...session.value, mfa_enrolment_required: true };
    throw new ApiError(code, message, status, details);
  }
  return envelope.data as T;
}

const csrf = () => session.value?.csrf_token ?? null;

export const api = {
  get: <T>(path: string, query: Query = {}) => request<T>('GET', path, query, undefined, csrf()),
  post: <T>(path: string, body: unknown, query: Query = {}) => request<T>('POST', path, query, body, csrf()),
  patch: <T>(path: string, body: unknown, query: Query = {}) => request<T>('PATCH', path, query, body, csrf()),
  put: <T>(path: string, body: unknown, query: Query = {}) => request<T>('PUT', path, query, body, csrf()),
  del: <T>(path: string, query: Query = {}) => request<T>('DELETE', path, query, undefined, csrf()),
  /** Signs in (the server sets the session cookie). A wrong password is a plain 401 `invalid_credentials`. */
  signIn: (email: string, password: string, extra: Record<string, string> = {}) => request<Data<'/v1/auth/session', 'post'>>('POST', '/auth/session', {}, { email, password, ...extra }, null),
  /** Ends the session on the server and clears its cookie. */
  signOut: () => request<SignedOut>('DELETE', '/auth/session', {}, undefined, csrf()),
};

/** At start: whether the session cookie still signs someone in (a reload, a new tab). */
export async function restoreSession(): Promise<void> {
  try {
    const s = await request<Data<'/v1/auth/session', 'get'>>('GET', '/auth/session', {}, undefined, null);
    if (s) startSession(s);
    else restoring.value = false;
  } catch {
    restoring.value = false;
  }
}
