// Dashboard sessions: signing in with a password (or through SSO) opens a session whose token
// lives only in the browser's HttpOnly cookie and whose HMAC lives in `web_sessions`; it ends
// after SESSION_IDLE_MS unused, SESSION_ABSOLUTE_MS after sign-in, at sign-out, and at a
// password change. Bearer JWTs for API clients are separate (service.ts).
import { v7 as uuidv7 } from 'uuid';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { csrfTokenOf, newSessionToken, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../auth/session-tokens.ts';
import type { Secrets } from '../../auth/secrets.ts';
import { authenticateSession } from '../../domain/authenticate.ts';
import type { PublicContext, ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import type { Store } from '../../store/db.ts';
import type { RateLimiter } from '../../store/rate-limit.ts';
import type { SessionBody } from './schemas.ts';
import { signIn, type SignedIn } from './service.ts';

export interface NewWebSession { id: string; token: string; csrfToken: string; expiresAt: number; absoluteExpiresAt: number }

/** Opens a session for a user in an org (who has just proved who they are). */
export async function createWebSession(ctx: PublicContext, secrets: Secrets, input: { userId: string; orgId: string; method: 'password' | 'sso' }): Promise<NewWebSession> {
  const { now } = ctx;
  const token = newSessionToken();
  const absoluteExpiresAt = now + SESSION_ABSOLUTE_MS;
  const expiresAt = Math.min(now + SESSION_IDLE_MS, absoluteExpiresAt);
  const id = uuidv7();
  await ctx.db.transaction().execute(async (trx) => {
    // Ended sessions are dropped as new ones open, so the table holds live sessions only.
    await trx.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
    await trx.insertInto('web_sessions').values({
      id, user_id: input.userId, org_id: input.orgId, token_hash: secrets.hmac('session', token), method: input.method,
      created_at: now, last_seen_at: now, expires_at: expiresAt, absolute_expires_at: absoluteExpiresAt,
    }).execute();
  });
  return { id, token, csrfToken: csrfTokenOf(secrets, token), expiresAt, absoluteExpiresAt };
}

/** What the dashboard learns of its session: who, until when, and the CSRF token its writes carry. */
export function sessionView(signedIn: SignedIn, session: { csrfToken: string; expiresAt: number; absoluteExpiresAt: number }) {
  return {
    ...signedIn,
    expires_at: iso(session.expiresAt),
    absolute_expires_at: iso(session.absoluteExpiresAt),
    csrf_token: session.csrfToken,
  };
}

/** POST /v1/auth/session: the password sign-in of login(), answered with a session instead of a JWT. */
export async function startSession({ ctx, input, secrets, limiter, ip }: { ctx: PublicContext; input: SessionBody; secrets: Secrets; limiter: RateLimiter; ip: string }) {
  const signedIn = await signIn({ ctx, input, secrets, limiter, ip });
  const session = await createWebSession(ctx, secrets, { userId: signedIn.user.id, orgId: signedIn.org.id, method: 'password' });
  return { session, view: sessionView(signedIn, session) };
}

/**
 * GET /v1/auth/session: this browser's session, found by its cookie (`token`), with its CSRF
 * token; null when the cookie is absent or signs no one in any more (so a page can ask at load
 * without an error). Reading it counts as use: the idle deadline slides.
 */
export async function sessionOfCookie(ctx: PublicContext, store: Store, secrets: Secrets, token: string | null) {
  if (!token) return null;
  let auth;
  try {
    auth = await authenticateSession(store, secrets, token, ctx.now);
  } catch (err) {
    if (err instanceof AppError && err.status === 401) return null;
    throw err;
  }
  const row = await ctx.db.selectFrom('web_sessions').select(['expires_at', 'absolute_expires_at']).where('id', '=', auth.sessionId!).executeTakeFirst();
  if (!row) return null;
  return sessionView({
    user: auth.user!, org: { id: auth.org.id, name: auth.org.name }, role: auth.role!,
    ...(auth.mfaEnrolmentRequired ? { mfa_enrolment_required: true as const } : {}),
  }, { csrfToken: csrfTokenOf(secrets, token), expiresAt: row.expires_at, absoluteExpiresAt: row.absolute_expires_at });
}

/** DELETE /v1/auth/session (and POST /v1/auth/logout) by cookie: ends the caller's session. */
export async function endSession(ctx: ServiceContext) {
  const { sessionId } = ctx.auth;
  if (!sessionId) throw new Error('endSession needs a caller signed in by the session cookie');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('web_sessions').where('id', '=', sessionId).execute();
    await recordAudit(trx, ctx, { action: 'auth.logout', targetType: 'user', targetId: ctx.auth.user?.id ?? null });
  });
  return { revoked: true };
}
