// Two-factor sign-in with TOTP: a user enrols their own account (setup, then enable with a code
// from the authenticator app, which returns ten recovery codes once), regenerates recovery codes
// and turns it off again unless an org of theirs requires it; an admin resets a member's second
// factor when the device is lost. Sign-in checks the second factor through checkSecondFactor
// (features/auth/service.ts). The secret is stored sealed (auth/secrets.ts) and leaves the
// server only in the setup answer; recovery codes are stored as HMACs and leave it only in the
// answer that creates them. Every change is audited, never with a secret or a code.
import type { Kysely } from 'kysely';
import QRCode from 'qrcode';
import { v7 as uuidv7 } from 'uuid';
import { recordAudit, recordAuditAs } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import { verifyPassword } from '../../auth/passwords.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { PublicContext, Role, ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { mfaPolicyCovers, require2faOf } from '../../domain/mfa-policy.ts';
import { countAccountFailure, enforceAccountLock } from '../../domain/rate-limits.ts';
import type { RateLimiter } from '../../store/rate-limit.ts';
import type { Database } from '../../store/tables.ts';
import { acceptTotp, newRecoveryCodes, newTotpSecret, otpauthUrl, parseOneTimeCode, recoveryCodeMessage } from './codes.ts';
import type { DisableBody, EnableBody, RegenerateBody } from './schemas.ts';

/** What a valid code consumed: a TOTP time step (later codes only from now on) or one recovery code. */
export type SecondFactor = { kind: 'totp'; step: number } | { kind: 'recovery'; id: string };

const confirmedMfa = (db: Kysely<Database>, userId: string) =>
  db.selectFrom('user_mfa').selectAll().where('user_id', '=', userId).where('confirmed_at', 'is not', null).executeTakeFirst();

/** Whether the user has confirmed two-factor sign-in. */
export async function hasConfirmedMfa(db: Kysely<Database>, userId: string): Promise<boolean> {
  return (await confirmedMfa(db, userId)) !== undefined;
}

/**
 * Checks a code against the user's confirmed second factor and consumes it in the same
 * statement that checks it is unused: a TOTP code moves last_step to its time step (so it, and
 * any earlier one, is refused from then on), a recovery code is marked used. Null: the code is
 * malformed, wrong, outside the accepted drift, replayed, or the user has no second factor.
 */
export async function consumeSecondFactor(db: Kysely<Database>, secrets: Secrets, userId: string, input: string, now: number): Promise<SecondFactor | null> {
  const mfa = await confirmedMfa(db, userId);
  if (!mfa) return null;
  const parsed = parseOneTimeCode(input);
  if (parsed.kind === 'totp') {
    const step = acceptTotp(secrets.decrypt(mfa.totp_secret), parsed.code, now, mfa.last_step);
    if (step === null) return null;
    const updated = await db.updateTable('user_mfa').set({ last_step: step, updated_at: now })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1 ? { kind: 'totp', step } : null;
  }
  if (parsed.kind === 'recovery') {
    const hashes = secrets.hmacs('token', recoveryCodeMessage(parsed.code));
    const row = await db.selectFrom('user_recovery_codes').select('id')
      .where('user_id', '=', userId).where('code_hash', 'in', hashes).where('used_at', 'is', null).executeTakeFirst();
    if (!row) return null;
    const claimed = await db.updateTable('user_recovery_codes').set({ used_at: now })
      .where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1 ? { kind: 'recovery', id: row.id } : null;
  }
  return null;
}

/** One audit row in every org the user belongs to: a user's second factor is theirs in all of them. */
async function auditUserEverywhere(db: Kysely<Database>, ctx: PublicContext, userId: string, action: string, details?: Record<string, unknown>) {
  const orgs = await db.selectFrom('memberships').select('org_id').where('user_id', '=', userId).execute();
  for (const { org_id: orgId } of orgs) {
    await recordAuditAs(db, { orgId, actor: { type: 'user', id: userId }, now: ctx.now, requestId: ctx.requestId, ip: ctx.ip },
      { action, targetType: 'user', targetId: userId, details });
  }
}

export async function recoveryCodesLeft(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db.selectFrom('user_recovery_codes').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Replaces the user's recovery codes with ten new ones; returns them (the only time they are seen). */
async function replaceRecoveryCodes(trx: Kysely<Database>, secrets: Secrets, userId: string, now: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await trx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await trx.insertInto('user_recovery_codes').values(codes.map((code) => ({
    id: uuidv7(), user_id: userId, code_hash: secrets.hmac('token', recoveryCodeMessage(code)), used_at: null, created_at: now,
  }))).execute();
  return codes;
}

/** Whether any org of the user requires two factors of them (for turning it off: no org of theirs may require it). */
async function requiredAnywhere(db: Kysely<Database>, userId: string): Promise<boolean> {
  const rows = await db.selectFrom('memberships').leftJoin('org_settings', 'org_settings.org_id', 'memberships.org_id')
    .select(['memberships.role', 'org_settings.require_2fa']).where('memberships.user_id', '=', userId).execute();
  return rows.some((row) => mfaPolicyCovers(require2faOf(row.require_2fa), row.role as Role));
}

const signedInUser = (ctx: ServiceContext) => {
  if (!ctx.auth.user) throw new AppError('jwt_required', 'This route needs a user token (POST /v1/auth/login)');
  return ctx.auth.user;
};

/**
 * A code given to a signed-in user's own 2FA routes (enable, disable, new recovery codes): the
 * account's lockout is enforced first and a wrong code counts as a failed login does, so a
 * stolen session cannot guess codes without limit. Wrong is a 400 on field `code` (the caller
 * is signed in: a 401 would read as the session ending).
 */
async function withCodeAttempt<T>(ctx: ServiceContext, limiter: RateLimiter, attempt: () => Promise<T | null>, field = 'code'): Promise<T> {
  const user = signedInUser(ctx);
  await enforceAccountLock(limiter, user.email, ctx.now);
  const result = await attempt();
  if (result === null) {
    await countAccountFailure(limiter, user.email, ctx.now);
    throw invalidInput(field, field === 'password' ? 'is not this account\'s password' : 'is not a valid code (wrong, already used or expired)');
  }
  return result;
}

export async function getStatus({ ctx }: { ctx: ServiceContext }) {
  const user = signedInUser(ctx);
  const mfa = await confirmedMfa(ctx.db, user.id);
  const settings = await ctx.db.selectFrom('org_settings').select('require_2fa').where('org_id', '=', ctx.auth.org.id).executeTakeFirst();
  return {
    enabled: mfa !== undefined,
    confirmed_at: mfa?.confirmed_at == null ? null : iso(mfa.confirmed_at),
    recovery_codes_left: mfa ? await recoveryCodesLeft(ctx.db, user.id) : 0,
    required: mfaPolicyCovers(require2faOf(settings?.require_2fa), ctx.auth.role),
  };
}

/** Starts enrolment with a new secret, or starts it again (a new secret) while unconfirmed. */
export async function startSetup({ ctx, secrets }: { ctx: ServiceContext; secrets: Secrets }) {
  const user = signedInUser(ctx);
  const secret = newTotpSecret();
  const sealed = secrets.encrypt(secret);
  await ctx.db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('user_mfa').select('confirmed_at').where('user_id', '=', user.id).executeTakeFirst();
    if (existing && existing.confirmed_at !== null) {
      throw new AppError('conflict', 'Two-factor sign-in is already on: turn it off first to set up another authenticator');
    }
    if (existing) {
      await trx.updateTable('user_mfa').set({ totp_secret: sealed, last_step: null, updated_at: ctx.now })
        .where('user_id', '=', user.id).where('confirmed_at', 'is', null).execute();
    } else {
      await trx.insertInto('user_mfa').values({ user_id: user.id, totp_secret: sealed, confirmed_at: null, last_step: null, created_at: ctx.now, updated_at: ctx.now }).execute();
    }
  });
  const url = otpauthUrl(secret, user.email);
  return { secret, otpauth_url: url, qr_svg: await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) };
}

/** Confirms enrolment with a current code from the app; answers the ten recovery codes, once. */
export async function enable({ ctx, input, secrets, limiter }: { ctx: ServiceContext; input: EnableBody; secrets: Secrets; limiter: RateLimiter }) {
  const user = signedInUser(ctx);
  const pending = await ctx.db.selectFrom('user_mfa').selectAll().where('user_id', '=', user.id).executeTakeFirst();
  if (!pending) throw new AppError('conflict', 'Start two-factor setup first (POST /v1/auth/2fa/setup)');
  if (pending.confirmed_at !== null) throw new AppError('conflict', 'Two-factor sign-in is already on');
  const parsed = parseOneTimeCode(input.code);
  const step = await withCodeAttempt(ctx, limiter, async () =>
    (parsed.kind === 'totp' ? acceptTotp(secrets.decrypt(pending.totp_secret), parsed.code, ctx.now, pending.last_step) : null));
  const codes = await ctx.db.transaction().execute(async (trx) => {
    // Confirmed only if still pending under the same secret: a concurrent new setup wins, and this fails.
    const confirmed = await trx.updateTable('user_mfa').set({ confirmed_at: ctx.now, last_step: step, updated_at: ctx.now })
      .where('user_id', '=', user.id).where('confirmed_at', 'is', null).where('totp_secret', '=', pending.totp_secret).executeTakeFirst();
    if (Number(confirmed.numUpdatedRows) !== 1) throw new AppError('conflict', 'The setup changed meanwhile: start it again');
    const created = await replaceRecoveryCodes(trx, secrets, user.id, ctx.now);
    await auditUserEverywhere(trx, ctx, user.id, 'auth.2fa_enabled', { email: user.email, recovery_codes: created.length });
    return created;
  });
  return { enabled: true as const, recovery_codes: codes };
}

/** Turns two-factor sign-in off, with the password and a code (or a recovery code); refused while an org of the user requires it. */
export async function disable({ ctx, input, secrets, limiter }: { ctx: ServiceContext; input: DisableBody; secrets: Secrets; limiter: RateLimiter }) {
  const user = signedInUser(ctx);
  if (!(await hasConfirmedMfa(ctx.db, user.id))) throw new AppError('conflict', 'Two-factor sign-in is not on');
  if (await requiredAnywhere(ctx.db, user.id)) {
    throw new AppError('mfa_required_by_org', 'An org of this account requires two-factor sign-in: it cannot be turned off');
  }
  const row = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
  await withCodeAttempt(ctx, limiter, async () => ((await verifyPassword(input.password, row.password_hash)) ? true : null), 'password');
  await ctx.db.transaction().execute(async (trx) => {
    await withCodeAttempt(ctx, limiter, () => consumeSecondFactor(trx, secrets, user.id, input.code, ctx.now));
    await trx.deleteFrom('user_recovery_codes').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('user_mfa').where('user_id', '=', user.id).execute();
    await auditUserEverywhere(trx, ctx, user.id, 'auth.2fa_disabled', { email: user.email });
  });
  return { enabled: false as const };
}

/** Ten new recovery codes for a code from the app (or an unused recovery code); the old ones stop working. */
export async function regenerateRecoveryCodes({ ctx, input, secrets, limiter }: { ctx: ServiceContext; input: RegenerateBody; secrets: Secrets; limiter: RateLimiter }) {
  const user = signedInUser(ctx);
  if (!(await hasConfirmedMfa(ctx.db, user.id))) throw new AppError('conflict', 'Two-factor sign-in is not on');
  const codes = await ctx.db.transaction().execute(async (trx) => {
    await withCodeAttempt(ctx, limiter, () => consumeSecondFactor(trx, secrets, user.id, input.code, ctx.now));
    const created = await replaceRecoveryCodes(trx, secrets, user.id, ctx.now);
    await auditUserEverywhere(trx, ctx, user.id, 'auth.recovery_codes_regenerated', { email: user.email, recovery_codes: created.length });
    return created;
  });
  return { recovery_codes: codes };
}

/**
 * An admin clears a member's second factor (a lost device): the member signs in with their
 * password alone and, if the org requires it, enrols again. Only an owner resets an owner's.
 */
export async function resetMemberMfa({ ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } }) {
  return ctx.db.transaction().execute(async (trx) => {
    const member = await trx.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['memberships.id', 'memberships.user_id', 'memberships.role', 'users.email'])
      .where('memberships.org_id', '=', ctx.auth.org.id).where('memberships.id', '=', id).executeTakeFirst();
    if (!member) throw new AppError('not_found', 'Member not found');
    if (member.role === 'owner' && ctx.auth.role !== 'owner') {
      throw new AppError('insufficient_role', 'Only owners reset an owner\'s two-factor sign-in', { required: 'owner' });
    }
    const removed = await trx.deleteFrom('user_mfa').where('user_id', '=', member.user_id).returning('confirmed_at').executeTakeFirst();
    await trx.deleteFrom('user_recovery_codes').where('user_id', '=', member.user_id).execute();
    const wasEnabled = removed !== undefined && removed.confirmed_at !== null;
    await recordAudit(trx, ctx, { action: 'auth.2fa_reset', targetType: 'member', targetId: id, details: { user_id: member.user_id, email: member.email, was_enabled: wasEnabled } });
    return { id, user_id: member.user_id, reset: true as const, was_enabled: wasEnabled };
  });
}

/**
 * The second factor of a sign-in whose password was right (features/auth/service.ts
 * checkLogin, for a JWT and a dashboard session alike). A user with confirmed 2FA and no `otp`
 * is answered 401 mfa_required; a wrong, replayed or malformed code 401 invalid_otp (audited as
 * a failed sign-in, reason `otp`; the caller counts it against the account as a wrong password);
 * a recovery code is consumed and audited. Answers whether the user has 2FA confirmed.
 */
export async function checkLoginSecondFactor({ ctx, secrets, userId, email, otp }: { ctx: PublicContext; secrets: Secrets; userId: string; email: string; otp: string | undefined }): Promise<boolean> {
  if (!(await hasConfirmedMfa(ctx.db, userId))) return false;
  if (otp === undefined || otp.trim() === '') {
    throw new AppError('mfa_required', 'This account signs in with two factors: send otp, a code from the authenticator app or a recovery code', { methods: ['totp', 'recovery_code'] });
  }
  // The failure's audit row is committed with the rest of the transaction, then the refusal thrown.
  const accepted = await ctx.db.transaction().execute(async (trx) => {
    const factor = await consumeSecondFactor(trx, secrets, userId, otp, ctx.now);
    if (!factor) {
      await auditUserEverywhere(trx, ctx, userId, 'auth.login_failed', { email, reason: 'otp' });
      return false;
    }
    if (factor.kind === 'recovery') {
      await auditUserEverywhere(trx, ctx, userId, 'auth.recovery_code_used', { email, recovery_code_id: factor.id, recovery_codes_left: await recoveryCodesLeft(trx, userId) });
    }
    return true;
  });
  if (!accepted) throw new AppError('invalid_otp', 'The one-time code is not valid, was already used or has expired');
  return true;
}

/** Whether the org's policy makes a user with this role, without confirmed 2FA, enrol before anything else. */
export async function enrolmentRequired(db: Kysely<Database>, orgId: string, role: Role, enrolled: boolean): Promise<boolean> {
  if (enrolled) return false;
  const settings = await db.selectFrom('org_settings').select('require_2fa').where('org_id', '=', orgId).executeTakeFirst();
  return mfaPolicyCovers(require2faOf(settings?.require_2fa), role);
}
