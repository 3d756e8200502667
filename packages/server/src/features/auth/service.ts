// Logging in issues a user JWT; logging out revokes it; setting a password redeems an
// invitation or reset token. Login and set-password have no authenticated caller, so they
// take a PublicContext; a failed login never says which part was wrong. Each leaves an audit
// row (audit/record.ts): a sign-in in the org signed into, a failed sign-in of a known user in
// every org the user belongs to (the attempt names no org it could be trusted with), and one
// for an unknown email nowhere: no org owns it, and nothing is created for it.
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { recordAudit, recordAuditAs } from '../../audit/record.ts';
import { hashPassword, verifyPassword } from '../../auth/passwords.ts';
import { JWT_DEFAULT_SECONDS, signUserToken } from '../../auth/jwt.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { PublicContext, Role, ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { clearAccountFailures, countAccountFailure, enforceAccountLock, enforceLoginLimit, withFailedAuthLockout } from '../../domain/rate-limits.ts';
import type { RateLimiter } from '../../store/rate-limit.ts';
import { assertUuid } from '../../domain/tenancy.ts';
import type { Database } from '../../store/tables.ts';
import { requiredSso, startUrl } from '../sso/required.ts';
import { checkLoginSecondFactor, enrolmentRequired } from '../two-factor/service.ts';
import type { ChangePasswordBody, LoginBody, SessionBody, SetPasswordBody } from './schemas.ts';

const badLogin = () => new AppError('invalid_credentials', 'Email or password is incorrect');

/** One audit row per org the user belongs to (all of them, or those given), with the user as actor and target. */
async function auditUser(db: Kysely<Database>, ctx: PublicContext, userId: string, orgIds: string[] | null, action: string, details?: Record<string, unknown>) {
  const orgs = orgIds ?? (await db.selectFrom('memberships').select('org_id').where('user_id', '=', userId).execute()).map((m) => m.org_id);
  for (const orgId of orgs) {
    await recordAuditAs(db, { orgId, actor: { type: 'user', id: userId }, now: ctx.now, requestId: ctx.requestId, ip: ctx.ip },
      { action, targetType: 'user', targetId: userId, details });
  }
}

/** Who signed in: the user, the org signed into and the role there. */
export interface SignedIn {
  user: { id: string; email: string };
  org: { id: string; name: string };
  role: Role;
  /** The org requires two factors of this user, who has none yet: only enrolment routes answer them (http/access.ts). */
  mfa_enrolment_required?: true;
}

/** A user JWT for API clients; the dashboard signs in with a session cookie instead (web-session.ts). */
export async function login({ ctx, input, secrets, limiter, ip }: { ctx: PublicContext; input: LoginBody; secrets: Secrets; limiter: RateLimiter; ip: string }) {
  const signedIn = await signIn({ ctx, input, secrets, limiter, ip });
  const { token, expiresAt } = await signUserToken(secrets, signedIn.user.id, signedIn.org.id, ctx.now, input.expires_in ?? JWT_DEFAULT_SECONDS);
  return { token, expires_at: iso(expiresAt), ...signedIn };
}

/**
 * Sign-in with a password, for a JWT or a dashboard session alike. Logins are limited per
 * email and client address (`ip`), then refused while the account (its email, known or not)
 * waits out a progressive delay or a lock, all before the password is checked; a failed login
 * counts for the account and in the client address's failed-authentication lockout
 * (domain/rate-limits.ts). A correct password during a lock is refused too.
 */
export async function signIn({ ctx, input, secrets, limiter, ip }: { ctx: PublicContext; input: SessionBody; secrets: Secrets; limiter: RateLimiter; ip: string }): Promise<SignedIn> {
  const email = input.email.trim().toLowerCase();
  await enforceLoginLimit(limiter, email, ip, ctx.now);
  return withFailedAuthLockout(limiter, ip, ctx.now, async () => {
    await enforceAccountLock(limiter, email, ctx.now);
    try {
      const result = await checkLogin(ctx, input, email, secrets);
      await clearAccountFailures(limiter, email, ctx.now);
      return result;
    } catch (err) {
      // A wrong one-time code counts against the account exactly as a wrong password does.
      if (err instanceof AppError && (err.code === 'invalid_credentials' || err.code === 'invalid_otp')) {
        const { until, locked } = await countAccountFailure(limiter, email, ctx.now);
        const user = locked && until !== null ? await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst() : undefined;
        if (user && until !== null) await auditUser(ctx.db, ctx, user.id, null, 'auth.account_locked', { email, until: iso(until) });
      }
      throw err;
    }
  });
}

async function checkLogin(ctx: PublicContext, input: SessionBody, email: string, secrets: Secrets): Promise<SignedIn> {
  const user = await ctx.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  // verifyPassword spends the same time whether or not the user exists.
  const valid = await verifyPassword(input.password, user?.password_hash ?? null);
  if (!user) throw badLogin();
  // Never the password tried: only why it failed, beside the address the row carries.
  if (!valid) {
    await auditUser(ctx.db, ctx, user.id, null, 'auth.login_failed', { email, reason: 'password' });
    throw badLogin();
  }
  // Two-factor sign-in (features/two-factor): 401 mfa_required without a code, invalid_otp with a wrong one.
  const enrolled = await checkLoginSecondFactor({ ctx, secrets, userId: user.id, email, otp: input.otp });
  let memberships = ctx.db.selectFrom('memberships').innerJoin('orgs', 'orgs.id', 'memberships.org_id')
    .select(['orgs.id', 'orgs.name', 'memberships.role']).where('memberships.user_id', '=', user.id);
  if (input.org_id) memberships = memberships.where('orgs.id', '=', assertUuid(input.org_id, 'org_id'));
  const membership = await memberships.orderBy('memberships.created_at', 'asc').executeTakeFirst();
  if (!membership) {
    await auditUser(ctx.db, ctx, user.id, null, 'auth.login_failed', { email, reason: 'org' });
    throw badLogin();
  }
  // Single sign-on (features/sso): an org that requires it refuses its members' passwords; owners keep them (the break-glass).
  if (await requiredSso(ctx.db, membership.id, membership.role)) {
    await auditUser(ctx.db, ctx, user.id, [membership.id], 'auth.login_failed', { email, reason: 'sso_required' });
    throw new AppError('sso_required', 'This org signs its members in with single sign-on: start at details.start_url', { start_url: startUrl(email, membership.id) });
  }
  await auditUser(ctx.db, ctx, user.id, [membership.id], 'auth.login', { email });
  const enrol = await enrolmentRequired(ctx.db, membership.id, membership.role as Role, enrolled);
  return {
    user: { id: user.id, email: user.email }, org: { id: membership.id, name: membership.name }, role: membership.role as Role,
    ...(enrol ? { mfa_enrolment_required: true as const } : {}),
  };
}

/**
 * A signed-in user changes their own password, proving the current one (a wrong one counts
 * toward the account's lockout, as a failed login does). Every dashboard session of the user
 * ends and every user JWT issued before now stops verifying; the route opens a new session
 * for a caller signed in by cookie, so only the other browsers are signed out.
 */
export async function changePassword({ ctx, input, limiter }: { ctx: ServiceContext; input: ChangePasswordBody; limiter: RateLimiter }) {
  const user = ctx.auth.user;
  if (!user) throw new AppError('jwt_required', 'This route needs a signed-in user');
  const { now } = ctx;
  await enforceAccountLock(limiter, user.email, now);
  const row = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
  if (!(await verifyPassword(input.current_password, row.password_hash))) {
    await countAccountFailure(limiter, user.email, now);
    await recordAudit(ctx.db, ctx, { action: 'auth.password_change_failed', targetType: 'user', targetId: user.id });
    throw invalidInput('current_password', 'is not the current password');
  }
  const passwordHash = await hashPassword(input.password);
  const endedSessions = await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now, password_changed_at: now }).where('id', '=', user.id).execute();
    const ended = await trx.deleteFrom('web_sessions').where('user_id', '=', user.id).executeTakeFirst();
    await recordAudit(trx, ctx, { action: 'auth.password_changed', targetType: 'user', targetId: user.id });
    return Number(ended.numDeletedRows);
  });
  await clearAccountFailures(limiter, user.email, now);
  return { user, ended_sessions: endedSessions };
}

/** Revokes the caller's own user token. */
export async function logout({ ctx }: { ctx: ServiceContext }) {
  const { jti, tokenExpiresAt } = ctx.auth;
  if (!jti || tokenExpiresAt === null) throw new AppError('jwt_required', 'This route needs a user token (POST /v1/auth/login)');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('revoked_tokens').values({ jti, expires_at: tokenExpiresAt })
      .onConflict((oc) => oc.column('jti').doNothing()).execute();
    // Revocations outlive their tokens by nothing: drop the ones that expired anyway.
    await trx.deleteFrom('revoked_tokens').where('expires_at', '<', ctx.now).execute();
    await recordAudit(trx, ctx, { action: 'auth.logout', targetType: 'user', targetId: ctx.auth.user?.id ?? null });
  });
  return { revoked: true };
}

/**
 * Redeems an invitation or reset token once: the token is claimed and the password set in one
 * transaction, which also ends the user's dashboard sessions and JWTs issued before it.
 */
export async function setPassword({ ctx, input, secrets }: { ctx: PublicContext; input: SetPasswordBody; secrets: Secrets }) {
  const { now } = ctx;
  // Under the current secret or, during a rotation, the previous one (tokens live INVITE_TTL_MS).
  const hashes = secrets.hmacs('token', input.token);
  const passwordHash = await hashPassword(input.password);
  const user = await ctx.db.transaction().execute(async (trx) => {
    const token = await trx.selectFrom('user_tokens').selectAll().where('token_hash', 'in', hashes).executeTakeFirst();
    if (!token || token.used_at !== null || token.expires_at <= now) throw invalidInput('token', 'is invalid, used or expired');
    // Claim the token first so two concurrent redemptions cannot both succeed.
    const claimed = await trx.updateTable('user_tokens').set({ used_at: now }).where('id', '=', token.id).where('used_at', 'is', null).executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) throw invalidInput('token', 'is invalid, used or expired');
    const updated = await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now, password_changed_at: now })
      .where('id', '=', token.user_id).returning(['id', 'email']).executeTakeFirstOrThrow();
    await trx.deleteFrom('web_sessions').where('user_id', '=', updated.id).execute();
    // An invitation is redeemed in the org that sent it; a reset token names no org, so every org of the user hears of it.
    const action = token.purpose === 'invite' ? 'auth.invitation_redeemed' : 'auth.password_reset';
    await auditUser(trx, ctx, updated.id, token.org_id ? [token.org_id] : null, action, { token_id: token.id });
    return updated;
  });
  return { user };
}
