// The only way the dashboard talks to Mallard: the public API under /v1, with the signed-in
// user's token. Errors keep the API's code so screens can say it; a 401 ends the session.
import { endSession, session } from './session.ts';

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

async function request<T>(method: string, path: string, query: Query, body: unknown, token: string | null): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(apiUrl(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
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
    if (res.status === 401 && token) endSession(`You were signed out: ${message} (${code}).`);
    throw new ApiError(code, message, status, details);
  }
  return envelope.data as T;
}

const token = () => session.value?.token ?? null;

export const api = {
  get: <T>(path: string, query: Query = {}) => request<T>('GET', path, query, undefined, token()),
  post: <T>(path: string, body: unknown, query: Query = {}) => request<T>('POST', path, query, body, token()),
  patch: <T>(path: string, body: unknown, query: Query = {}) => request<T>('PATCH', path, query, body, token()),
  del: <T>(path: string, query: Query = {}) => request<T>('DELETE', path, query, undefined, token()),
  /** Sign-in needs no token: a wrong password is a plain 401 `invalid_credentials`, not a session ending. */
  login: <T>(email: string, password: string) => request<T>('POST', '/auth/login', {}, { email, password }, null),
};
