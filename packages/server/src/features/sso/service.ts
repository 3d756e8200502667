// Single sign-on with OIDC. An org admin connects one identity provider (the client secret is
// sealed and never returned); a sign-in starts from an email address, goes to the provider and
// comes back to the callback, which signs the person into the connection's org and no other.
// The provider is trusted for the addresses of that org's members; a first sign-in of someone
// who is not a member adds them (jit) only when the address is at a domain the org claims. An
// org may require SSO of its members: password sign-in is then refused, except for owners (the
// break-glass when the provider is down or misconfigured).
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { recordAudit, recordAuditAs } from '../../audit/record.ts';
import { constantTimeEqual, type Secrets } from '../../auth/secrets.ts';
import type { PublicContext, ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { enforceLoginLimit } from '../../domain/rate-limits.ts';
import { assertUuid } from '../../domain/tenancy.ts';
import { MINUTE_MS } from '../../domain/time.ts';
import type { TargetPolicy } from '../../delivery/targets.ts';
import type { RateLimiter } from '../../store/rate-limit.ts';
import type { Database, SsoConnectionsTable } from '../../store/tables.ts';
import { createWebSession } from '../auth/web-session.ts';
import { authorizationRequest, discover, exchangeCode, issuerFailure, type Identity } from './oidc.ts';
import type { PutSsoBody, SsoCallbackQuery, SsoConnectionRecord, SsoStartQuery } from './schemas.ts';

/** How long a started sign-in may take at the provider. */
export const SSO_LOGIN_TTL_MS = 10 * MINUTE_MS;
export const CALLBACK_PATH = '/v1/auth/sso/callback';
export const DASHBOARD_HOME = '/app/';

/**
 * Why a sign-in failed, as the dashboard's sign-in screen receives it (`?sso_error=`): stable
 * codes, never a token or a provider's own text.
 */
export const SSO_FAILURE_CODES = [
  'sso_not_configured', 'sso_discovery_failed', 'sso_state_invalid', 'sso_provider_error', 'sso_token_invalid',
  'sso_email_missing', 'sso_email_unverified', 'sso_not_member', 'rate_limited',
] as const;
export type SsoFailureCode = (typeof SSO_FAILURE_CODES)[number];

export class SsoFailure extends Error {
  constructor(readonly code: SsoFailureCode, readonly reason: string) { super(reason); }
}

export const callbackUrl = (config: Config) => `${config.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`;

const domainsOf = (row: Pick<SsoConnectionsTable, 'email_domains'>): string[] => JSON.parse(row.email_domains) as string[];
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

function toRecord(row: SsoConnectionsTable, config: Config): SsoConnectionRecord {
  return {
    org_id: row.org_id, issuer: row.issuer, client_id: row.client_id, client_secret_set: true,
    email_domains: domainsOf(row), jit: row.jit === 1, default_role: row.default_role, required: row.required === 1, enabled: row.enabled === 1,
    callback_url: callbackUrl(config), created_at: iso(row.created_at), updated_at: iso(row.updated_at),
  };
}

export async function getConnection({ ctx, config }: { ctx: ServiceContext; config: Config }): Promise<SsoConnectionRecord> {
  const row = await ctx.db.selectFrom('sso_connections').selectAll().where('org_id', '=', ctx.auth.org.id).executeTakeFirst();
  if (!row) throw new AppError('sso_not_configured', 'No single sign-on is set up for this org');
  return toRecord(row, config);
}

/**
 * Connects the org's provider or changes its connection. The issuer is checked by reading its
 * discovery document through the outbound target policy before anything is stored; a secret
 * absent on an update keeps the stored one. A domain another org claims is a 409.
 */
export async function putConnection({ ctx, input, secrets, policy, config }: {
  ctx: ServiceContext; input: PutSsoBody; secrets: Secrets; policy: TargetPolicy; config: Config;
}): Promise<SsoConnectionRecord> {
  const orgId = ctx.auth.org.id;
  const { now } = ctx;
  const issuer = input.issuer.trim();
  const domains = [...new Set(input.email_domains.map((d) => d.toLowerCase()))];
  const existing = await ctx.db.selectFrom('sso_connections').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  if (!existing && input.client_secret === undefined) throw invalidInput('client_secret', 'is required when connecting a provider');
  let clientSecret = input.client_secret;
  if (clientSecret === undefined) {
    try {
      clientSecret = secrets.decrypt(existing!.client_secret);
    } catch {
      // Sealed under a secret this server no longer has (MALLARD_SECRET changed without an overlap).
      throw invalidInput('client_secret', 'the stored one cannot be opened with MALLARD_SECRET: give it again');
    }
  }
  try {
    await discover({ issuer, clientId: input.client_id, clientSecret }, policy);
  } catch (err) {
    const reason = issuerFailure(err);
    throw new AppError('sso_discovery_failed', `The issuer's discovery document could not be read: ${reason}`, { field: 'issuer', reason });
  }
  const row: SsoConnectionsTable = {
    org_id: orgId, issuer, client_id: input.client_id,
    client_secret: input.client_secret === undefined ? existing!.client_secret : secrets.encrypt(input.client_secret),
    email_domains: JSON.stringify(domains), jit: input.jit ? 1 : 0, default_role: input.default_role ?? 'viewer',
    required: input.required ? 1 : 0, enabled: input.enabled === false ? 0 : 1,
    created_at: existing?.created_at ?? now, updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    const others = await trx.selectFrom('sso_connections').select(['org_id', 'email_domains']).where('org_id', '!=', orgId).execute();
    const claimed = domains.filter((d) => others.some((o) => domainsOf(o).includes(d)));
    if (claimed.length > 0) throw new AppError('conflict', `Another org already claims ${claimed.join(', ')}`, { field: 'email_domains', domains: claimed });
    // An upsert: two first connections at once leave the later one, not a 500.
    const { org_id: _org, created_at: _created, ...changes } = row;
    await trx.insertInto('sso_connections').values(row).onConflict((oc) => oc.column('org_id').doUpdateSet(changes)).execute();
    // Never the secret: only whether it changed.
    await recordAudit(trx, ctx, {
      action: 'sso.connection_updated', targetType: 'sso_connection', targetId: orgId,
      details: {
        created: !existing, issuer, client_id: row.client_id, email_domains: domains, jit: row.jit === 1, default_role: row.default_role,
        required: row.required === 1, enabled: row.enabled === 1, secret_changed: input.client_secret !== undefined,
      },
    });
  });
  return toRecord(row, config);
}

export async function deleteConnection({ ctx }: { ctx: ServiceContext }) {
  const orgId = ctx.auth.org.id;
  await ctx.db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('sso_connections').where('org_id', '=', orgId).executeTakeFirst();
    if (Number(gone.numDeletedRows) !== 1) throw new AppError('sso_not_configured', 'No single sign-on is set up for this org');
    await trx.deleteFrom('sso_logins').where('org_id', '=', orgId).execute();
    await recordAudit(trx, ctx, { action: 'sso.connection_deleted', targetType: 'sso_connection', targetId: orgId });
  });
  return { id: orgId, deleted: true };
}

/**
 * The connection a sign-in of this address goes to: with org_id, that org's (if the address is
 * a member's or at one of its domains); else the oldest org of a user with this address that
 * has SSO on; else the org that claims the address's domain.
 */
async function connectionFor(db: Kysely<Database>, email: string, orgId: string | undefined): Promise<SsoConnectionsTable | undefined> {
  const user = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  const memberOrgs = user
    ? (await db.selectFrom('memberships').select('org_id').where('user_id', '=', user.id).orderBy('created_at', 'asc').execute()).map((m) => m.org_id)
    : [];
  const enabled = await db.selectFrom('sso_connections').selectAll().where('enabled', '=', 1).execute();
  const fits = (c: SsoConnectionsTable) => memberOrgs.includes(c.org_id) || domainsOf(c).includes(domainOf(email));
  if (orgId !== undefined) return enabled.find((c) => c.org_id === orgId && fits(c));
  for (const org of memberOrgs) {
    const found = enabled.find((c) => c.org_id === org);
    if (found) return found;
  }
  return enabled.find((c) => domainsOf(c).includes(domainOf(email)));
}

const settingsOf = (row: SsoConnectionsTable, secrets: Secrets) => ({ issuer: row.issuer, clientId: row.client_id, clientSecret: secrets.decrypt(row.client_secret) });

/**
 * Starts a sign-in: finds the org's provider, stores the sign-in (the state as an HMAC, the
 * nonce, the PKCE verifier sealed) and returns the provider's authorization URL and the state
 * the browser must carry back in its cookie. Limited like logins, per address and email.
 */
export async function startSso({ ctx, input, secrets, policy, config, limiter }: {
  ctx: PublicContext; input: SsoStartQuery; secrets: Secrets; policy: TargetPolicy; config: Config; limiter: RateLimiter;
}): Promise<{ location: string; state: string }> {
  const email = input.email.trim().toLowerCase();
  try {
    await enforceLoginLimit(limiter, email, ctx.ip ?? 'unknown', ctx.now);
  } catch (err) {
    if (err instanceof AppError && err.code === 'rate_limited') throw new SsoFailure('rate_limited', 'too many sign-ins');
    throw err;
  }
  const orgId = input.org_id === undefined ? undefined : assertUuid(input.org_id, 'org_id');
  const connection = await connectionFor(ctx.db, email, orgId);
  if (!connection) throw new SsoFailure('sso_not_configured', 'no connection for this address');
  let started;
  try {
    started = await authorizationRequest(await discover(settingsOf(connection, secrets), policy), callbackUrl(config));
  } catch (err) {
    ctx.log.warn({ org_id: connection.org_id, reason: issuerFailure(err) }, 'sso: the issuer could not be reached at sign-in');
    throw new SsoFailure('sso_discovery_failed', issuerFailure(err));
  }
  const { now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    // Sign-ins never finished are of no use once expired: each start sweeps them.
    await trx.deleteFrom('sso_logins').where('expires_at', '<', now).execute();
    await trx.insertInto('sso_logins').values({
      id: uuidv7(), org_id: connection.org_id, state_hash: secrets.hmac('token', started.state), nonce: started.nonce,
      code_verifier: secrets.encrypt(started.codeVerifier), email, return_to: input.return_to ?? DASHBOARD_HOME,
      created_at: now, expires_at: now + SSO_LOGIN_TTL_MS, used_at: null,
    }).execute();
  });
  return { location: started.url.href, state: started.state };
}

interface Claimed { id: string; org_id: string; nonce: string; code_verifier: string; email: string | null; return_to: string }

/** Claims the sign-in of this state once: unknown, expired or already used is null. */
async function claimLogin(db: Kysely<Database>, secrets: Secrets, state: string, now: number): Promise<Claimed | null> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('sso_logins').select(['id', 'org_id', 'nonce', 'code_verifier', 'email', 'return_to', 'used_at', 'expires_at'])
      .where('state_hash', 'in', secrets.hmacs('token', state)).executeTakeFirst();
    if (!row || row.used_at !== null || row.expires_at <= now) return null;
    const claimed = await trx.updateTable('sso_logins').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1 ? row : null;
  });
}

export interface SsoSignedIn {
  orgId: string; userId: string; returnTo: string;
  session: { token: string; csrfToken: string; expiresAt: number; absoluteExpiresAt: number };
}

/**
 * The provider's answer: the browser's state cookie must match the state, which is claimed once
 * and unexpired; the code is exchanged with the PKCE verifier and the ID token validated (issuer,
 * audience, nonce, signature, expiry); the address must be given and not marked unverified. A
 * member signs in; someone else is added at the default role when jit is on and the address is
 * at a domain the org claims (user and membership in one transaction), else refused. Every
 * outcome with a known org is audited there, never with a token.
 */
export async function finishSso({ ctx, query, cookieState, secrets, policy, config, limiter }: {
  ctx: PublicContext; query: SsoCallbackQuery; cookieState: string | null; secrets: Secrets; policy: TargetPolicy; config: Config; limiter: RateLimiter;
}): Promise<SsoSignedIn> {
  const { now } = ctx;
  try {
    await enforceLoginLimit(limiter, 'sso-callback', ctx.ip ?? 'unknown', now);
  } catch (err) {
    if (err instanceof AppError && err.code === 'rate_limited') throw new SsoFailure('rate_limited', 'too many sign-ins');
    throw err;
  }
  const state = query.state;
  if (!state) throw new SsoFailure('sso_state_invalid', 'no state');
  // The state must come back in the browser that started the sign-in: a callback URL opened
  // elsewhere (sent to someone to sign them in as another person) has no cookie.
  if (!cookieState || !constantTimeEqual(cookieState, state)) throw new SsoFailure('sso_state_invalid', 'state cookie missing or different');
  const login = await claimLogin(ctx.db, secrets, state, now);
  if (!login) throw new SsoFailure('sso_state_invalid', 'state unknown, expired or used');
  const orgId = login.org_id;
  const connection = await ctx.db.selectFrom('sso_connections').selectAll().where('org_id', '=', orgId).where('enabled', '=', 1).executeTakeFirst();

  const fail = async (code: SsoFailureCode, reason: string, extra: { userId?: string; email?: string } = {}): Promise<never> => {
    await recordAuditAs(ctx.db, { orgId, actor: extra.userId ? { type: 'user', id: extra.userId } : { type: 'system', id: null }, now, requestId: ctx.requestId, ip: ctx.ip }, {
      action: 'auth.sso_login_failed', targetType: 'user', targetId: extra.userId ?? null,
      // started_as: the address typed at the start (unproven), beside the one the provider gave, if any.
      details: { reason: code, ...(extra.email ? { email: extra.email } : {}), started_as: login.email, ...(connection ? { issuer: connection.issuer } : {}), detail: reason },
    });
    throw new SsoFailure(code, reason);
  };
  if (!connection) return fail('sso_not_configured', 'the connection was removed or turned off');
  if (query.error) return fail('sso_provider_error', `the provider refused: ${query.error.slice(0, 64)}`);

  let identity: Identity;
  try {
    const oidc = await discover(settingsOf(connection, secrets), policy);
    const current = new URL(callbackUrl(config));
    for (const [name, value] of Object.entries(query)) if (typeof value === 'string') current.searchParams.set(name, value);
    identity = await exchangeCode(oidc, current, { state, nonce: login.nonce, codeVerifier: secrets.decrypt(login.code_verifier) });
  } catch (err) {
    return fail('sso_token_invalid', issuerFailure(err));
  }
  if (!identity.email) return fail('sso_email_missing', 'the provider gave no email');
  const email = identity.email.trim().toLowerCase();
  if (identity.emailVerified === false) return fail('sso_email_unverified', 'the provider marks the email unverified', { email });

  const user = await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  const member = user
    ? await ctx.db.selectFrom('memberships').select(['id', 'role']).where('org_id', '=', orgId).where('user_id', '=', user.id).executeTakeFirst()
    : undefined;
  let userId = user?.id;
  if (!member) {
    if (connection.jit !== 1) return fail('sso_not_member', 'not a member, and just-in-time membership is off', { userId, email });
    if (!domainsOf(connection).includes(domainOf(email))) return fail('sso_not_member', 'not a member, and the address is at none of the org\'s domains', { userId, email });
    userId = await ctx.db.transaction().execute(async (trx) => {
      // No password: this person signs in through the provider (an admin may still invite them to
      // set one). ON CONFLICT: a concurrent first sign-in of the same address (another org's, or
      // a second tab) may have made the user or the membership first; then that one stands.
      await trx.insertInto('users').values({ id: uuidv7(), email, password_hash: null, name: null, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('email').doNothing()).execute();
      const id = (await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
      const membershipId = uuidv7();
      const added = await trx.insertInto('memberships').values({ id: membershipId, org_id: orgId, user_id: id, role: connection.default_role, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing()).returning('id').executeTakeFirst();
      if (added) {
        await recordAuditAs(trx, { orgId, actor: { type: 'user', id }, now, requestId: ctx.requestId, ip: ctx.ip }, {
          action: 'member.added', targetType: 'member', targetId: membershipId,
          details: { user_id: id, role: connection.default_role, via: 'sso', issuer: connection.issuer },
        });
      }
      return id;
    });
  }
  const session = await createWebSession(ctx, secrets, { userId: userId!, orgId, method: 'sso' });
  await recordAuditAs(ctx.db, { orgId, actor: { type: 'user', id: userId! }, now, requestId: ctx.requestId, ip: ctx.ip }, {
    action: 'auth.sso_login', targetType: 'user', targetId: userId!, details: { email, issuer: connection.issuer, jit: !member },
  });
  return { orgId, userId: userId!, returnTo: login.return_to, session };
}

