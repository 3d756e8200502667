// Members are users of the org with a role. Inviting an email with no user creates the user
// and a one-time set-password token (no mail server is assumed). Only owners grant or revoke
// `owner`; the last owner can be neither demoted nor removed.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { randomBase62, type Secrets } from '../../auth/secrets.ts';
import type { AuthContext, ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { DAY_MS } from '../../domain/time.ts';
import { clearAccountFailures } from '../../domain/rate-limits.ts';
import type { RateLimiter } from '../../store/rate-limit.ts';
import type { Database } from '../../store/tables.ts';
import type { CreateMemberBody, MemberRecord, UpdateMemberBody } from './schemas.ts';

export const INVITE_TTL_MS = 7 * DAY_MS;

interface MemberRow { id: string; user_id: string; email: string; role: string; password_hash: string | null; created_at: number; updated_at: number }

const toMember = (row: MemberRow): MemberRecord => ({
  id: row.id,
  user_id: row.user_id,
  email: row.email,
  role: row.role,
  status: row.password_hash ? 'active' : 'invited',
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

const memberQuery = (db: Kysely<Database>, orgId: string) => db.selectFrom('memberships')
  .innerJoin('users', 'users.id', 'memberships.user_id')
  .select(['memberships.id', 'memberships.user_id', 'users.email', 'memberships.role', 'users.password_hash', 'memberships.created_at', 'memberships.updated_at'])
  .where('memberships.org_id', '=', orgId);

export async function listMembers({ ctx }: { ctx: ServiceContext }): Promise<{ members: MemberRecord[] }> {
  const rows = await memberQuery(ctx.db, ctx.auth.org.id).orderBy('memberships.created_at', 'asc').orderBy('memberships.id', 'asc').execute();
  return { members: rows.map(toMember) };
}

/** Creates a one-time token for setting a password; only its HMAC is stored. */
export async function issueUserToken(trx: Kysely<Database>, secrets: Secrets, userId: string, orgId: string | null, purpose: 'invite' | 'reset', now: number) {
  const token = `mlt_${randomBase62(40)}`;
  await trx.insertInto('user_tokens').values({
    id: uuidv7(), user_id: userId, org_id: orgId, purpose, token_hash: secrets.hmac('token', token),
    expires_at: now + INVITE_TTL_MS, used_at: null, created_at: now,
  }).execute();
  return { token, expires_at: iso(now + INVITE_TTL_MS) };
}

function assertMayGrant(auth: AuthContext, role: string) {
  if (role === 'owner' && auth.role !== 'owner') {
    throw new AppError('insufficient_role', 'Only owners grant or revoke the owner role', { required: 'owner' });
  }
}

/** Adds a member; `secrets` signs the invitation token of an email with no user yet. */
export async function addMember({ ctx, input, secrets }: { ctx: ServiceContext; input: CreateMemberBody; secrets: Secrets }) {
  const { auth, now } = ctx;
  assertMayGrant(auth, input.role);
  const email = input.email.trim().toLowerCase();
  return ctx.db.transaction().execute(async (trx) => {
    let user = await trx.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    let invitation: { token: string; expires_at: string; set_password_url: string } | undefined;
    if (!user) {
      user = { id: uuidv7(), email, password_hash: null, name: null, created_at: now, updated_at: now, password_changed_at: null };
      await trx.insertInto('users').values(user).execute();
    }
    const existing = await trx.selectFrom('memberships').select('id').where('org_id', '=', auth.org.id).where('user_id', '=', user.id).executeTakeFirst();
    if (existing) throw new AppError('conflict', 'This email is already a member of the org');
    if (!user.password_hash) {
      const issued = await issueUserToken(trx, secrets, user.id, auth.org.id, 'invite', now);
      invitation = { ...issued, set_password_url: '/v1/auth/set-password' };
    }
    const id = uuidv7();
    await trx.insertInto('memberships').values({ id, org_id: auth.org.id, user_id: user.id, role: input.role, created_at: now, updated_at: now }).execute();
    await recordAudit(trx, ctx, { action: 'member.added', targetType: 'member', targetId: id, details: { user_id: user.id, role: input.role } });
    const member = toMember({ id, user_id: user.id, email, role: input.role, password_hash: user.password_hash, created_at: now, updated_at: now });
    return invitation ? { ...member, invitation } : member;
  });
}

async function loadMember(trx: Kysely<Database>, orgId: string, id: string) {
  const row = await memberQuery(trx, orgId).where('memberships.id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Member not found');
  return row;
}

async function assertAnotherOwner(trx: Kysely<Database>, orgId: string, exceptId: string) {
  const others = await trx.selectFrom('memberships').select('id').where('org_id', '=', orgId)
    .where('role', '=', 'owner').where('id', '!=', exceptId).limit(1).execute();
  if (others.length === 0) throw new AppError('conflict', 'The org must keep at least one owner');
}

export async function changeRole({ ctx, input: { id, role } }: { ctx: ServiceContext; input: UpdateMemberBody & { id: string } }): Promise<MemberRecord> {
  const { auth, now } = ctx;
  return ctx.db.transaction().execute(async (trx) => {
    const member = await loadMember(trx, auth.org.id, id);
    if (member.role === role) return toMember(member);
    assertMayGrant(auth, member.role);
    assertMayGrant(auth, role);
    if (member.role === 'owner') await assertAnotherOwner(trx, auth.org.id, id);
    await trx.updateTable('memberships').set({ role, updated_at: now }).where('id', '=', id).execute();
    await recordAudit(trx, ctx, { action: 'member.role_changed', targetType: 'member', targetId: id, details: { from: member.role, to: role } });
    return toMember({ ...member, role, updated_at: now });
  });
}

export async function removeMember({ ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } }): Promise<{ id: string; deleted: true }> {
  const { auth, now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    const member = await loadMember(trx, auth.org.id, id);
    assertMayGrant(auth, member.role);
    if (member.role === 'owner') await assertAnotherOwner(trx, auth.org.id, id);
    await trx.deleteFrom('memberships').where('id', '=', id).execute();
    await recordAudit(trx, ctx, { action: 'member.removed', targetType: 'member', targetId: id, details: { user_id: member.user_id } });
  });
  return { id, deleted: true };
}

/**
 * Lifts a member's login lockout (the progressive delay and the hour's lock) at once, in every
 * process (the counts live in the shared limiter); audited. Unlocking an account that is not
 * locked changes nothing and is audited all the same.
 */
export async function unlockMember({ ctx, input: { id }, limiter }: { ctx: ServiceContext; input: { id: string }; limiter: RateLimiter }) {
  const member = await loadMember(ctx.db, ctx.auth.org.id, id);
  await clearAccountFailures(limiter, member.email, ctx.now);
  await recordAudit(ctx.db, ctx, { action: 'member.unlocked', targetType: 'member', targetId: id, details: { user_id: member.user_id } });
  return { id, user_id: member.user_id, unlocked: true as const };
}
