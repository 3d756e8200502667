// Dashboard sessions (the `mallard_session` cookie): a random token the browser keeps in an
// HttpOnly cookie and the store keeps only as an HMAC, and the CSRF token derived from it. The
// CSRF token is a synchronizer token without storage: an HMAC of the session token under its
// own key, which only the server can compute and the page learns from the API (never from the
// cookie), so a forged cross-site write cannot carry it.
import { constantTimeEqual, randomBase62, type Secrets } from './secrets.ts';

const MINUTE_MS = 60_000;

export const SESSION_COOKIE = 'mallard_session';
export const CSRF_HEADER = 'x-csrf-token';
/** A session ends after this long without a request (sliding: each use moves the deadline on). */
export const SESSION_IDLE_MS = 30 * MINUTE_MS;
/** ...and this long after sign-in whatever happens: then the person signs in again. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * MINUTE_MS;
/** A used session's deadline is moved on at most this often: one write a minute, not one per request. */
export const SESSION_RENEW_EVERY_MS = MINUTE_MS;

const PREFIX = 'mls_';

/** A new session token: 43 base62 characters, about 256 bits. */
export const newSessionToken = () => `${PREFIX}${randomBase62(43)}`;

/** Whether a cookie value has a session token's shape (anything else is refused before any lookup). */
export const isSessionToken = (value: string) => value.length === PREFIX.length + 43 && value.startsWith(PREFIX) && /^[0-9A-Za-z]+$/.test(value.slice(PREFIX.length));

/** What a session token may be stored as: its HMAC under the current secret, then the previous. */
export const sessionTokenHashes = (secrets: Secrets, token: string) => secrets.hmacs('session', token);

export const csrfTokenOf = (secrets: Secrets, sessionToken: string) => secrets.hmac('csrf', sessionToken);

/** Whether a request's CSRF header belongs to its session token (under either secret of a rotation). */
export function csrfMatches(secrets: Secrets, sessionToken: string, header: string | undefined): boolean {
  if (!header) return false;
  return secrets.hmacs('csrf', sessionToken).some((expected) => constantTimeEqual(expected, header));
}
