// The dashboard's session cookie over HTTP: reading it (only when no Authorization header is
// sent: a bearer credential always wins), setting and clearing it, and the CSRF check every
// cookie-authenticated write must pass. The cookie is HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure when MALLARD_PUBLIC_URL is HTTPS,
// and scoped to /v1 (the API; the dashboard's own files need no credential).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { csrfMatches, CSRF_HEADER, SESSION_COOKIE } from '../auth/session-tokens.ts';
import type { Secrets } from '../auth/secrets.ts';
import { AppError } from '../domain/errors.ts';

const COOKIE_PATH = '/v1';
/** Methods that change something: a cookie-authenticated one must carry the CSRF token. */
const UNSAFE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** The session cookie's token, or null when there is none or an Authorization header is sent. */
export function sessionCookieOf(request: FastifyRequest): string | null {
  if (request.headers.authorization !== undefined) return null;
  return request.cookies[SESSION_COOKIE] || null;
}

const secureFor = (config: Config) => config.publicUrl.startsWith('https:');

export function setSessionCookie(reply: FastifyReply, config: Config, token: string, absoluteExpiresAt: number, now: number) {
  reply.setCookie(SESSION_COOKIE, token, {
    path: COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure: secureFor(config),
    // The browser may drop it at the session's absolute end; the server ends it sooner when idle.
    maxAge: Math.max(0, Math.floor((absoluteExpiresAt - now) / 1000)),
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config) {
  reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure: secureFor(config) });
}

/** 403 `csrf_failed` for a cookie-authenticated write without its session's CSRF token. */
export function enforceCsrf(request: FastifyRequest, secrets: Secrets) {
  if (!request.auth?.sessionId || !UNSAFE_METHODS.has(request.method)) return;
  const token = request.cookies[SESSION_COOKIE];
  const header = request.headers[CSRF_HEADER];
  if (!token || !csrfMatches(secrets, token, typeof header === 'string' ? header : undefined)) {
    throw new AppError('csrf_failed', `A write signed in by the session cookie needs the ${CSRF_HEADER} header from POST or GET /v1/auth/session`);
  }
}
