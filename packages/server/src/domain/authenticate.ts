// Who is calling: a token resolved to its credential (an API key or a user JWT), or the 401
// that fits. The HTTP hooks, ingest and the public SDK config all resolve tokens here.
import { keyTypeOf, keyHashes, type KeyType, type Scope } from '../auth/api-keys.ts';
import { verifyUserToken } from '../auth/jwt.ts';
import { isSessionToken, SESSION_IDLE_MS, SESSION_RENEW_EVERY_MS, sessionTokenHashes } from '../auth/session-tokens.ts';
import { constantTimeEqual, type Secrets } from '../auth/secrets.ts';
import { isOAuthToken, oauthIdHashes } from '../auth/oauth-records.ts';
import type { Kysely } from 'kysely';
import { MINUTE_MS, SECOND_MS } from './time.ts';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/tables.ts';
import { AppError } from './errors.ts';
import { roleRank, type AuthContext, type Role } from './context.ts';
import { mfaPolicyCovers, require2faOf } from './mfa-policy.ts';

/** The token of an Authorization header, or a 401 `missing_auth` for an absent, empty or non-Bearer one. */
export function bearerOf(header: string | undefined): string {
  if (!header) throw new AppError('missing_auth', 'Authorization header with a Bearer token is required');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('missing_auth', 'Authorization must be "Bearer <token>"');
  return match[1];
}

async function orgWithSettings(store: Store, orgId: string) {
  return store.db.selectFrom('orgs')
    .leftJoin('org_settings', 'org_settings.org_id', 'orgs.id')
    .select(['orgs.id', 'orgs.name', 'org_settings.duck_facts', 'org_settings.require_2fa'])
    .where('orgs.id', '=', orgId)
    .executeTakeFirst();
}

/**
 * Resolves a token to its credential, or throws the 401 that fits. `oauth`: the route takes an
 * OAuth access token Mallard issued (the MCP endpoint only); elsewhere one is just not a key.
 */
export async function authenticate(store: Store, secrets: Secrets, token: string, now: number, options: { oauth?: boolean } = {}): Promise<AuthContext> {
  const keyType = keyTypeOf(token);
  if (keyType) return authenticateKey(store, secrets, token, now);
  if (token.split('.').length === 3) return authenticateJwt(store, secrets, token, now);
  if (options.oauth && isOAuthToken(token)) return authenticateOAuth(store, secrets, token, now);
  throw new AppError('invalid_key', 'The API key is not valid');
}

/** The one scope of the MCP resource: what the token may do is what the person approved (oauth_grants). */
export const MCP_SCOPE = 'mcp';
/** The path of the one resource OAuth tokens are for (features/oauth/provider.ts: <issuer>/v1/mcp). */
const MCP_RESOURCE_PATH = '/v1/mcp';

/** `last_used_at` of an OAuth connection is written at most this often. */
const OAUTH_LAST_USED_EVERY_MS = MINUTE_MS;

/**
 * An OAuth access token (features/oauth): its record found by HMAC, unexpired by the injected
 * clock, its connection not revoked, its person still a member. It acts as that person within
 * what they approved: the org, one site or all, read (mcp:read) or also write (manage:write,
 * and only while their role is member or higher).
 */
async function authenticateOAuth(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const refused = () => new AppError('invalid_token', 'The access token is not valid or has expired; refresh it or connect again');
  const record = await store.db.selectFrom('oauth_records').select(['id_hash', 'payload', 'grant_id', 'expires_at'])
    .where('model', '=', 'AccessToken').where('id_hash', 'in', oauthIdHashes(secrets, 'AccessToken', token)).executeTakeFirst();
  if (!record || record.grant_id === null) throw refused();
  let payload: { exp?: number; grantId?: string; aud?: unknown; scope?: unknown };
  try {
    payload = JSON.parse(secrets.decrypt(record.payload)) as typeof payload;
  } catch {
    throw refused();
  }
  const expiresAt = typeof payload.exp === 'number' ? payload.exp * SECOND_MS : null;
  if (expiresAt === null || expiresAt <= now || payload.grantId !== record.grant_id) throw refused();
  // Only a token for the MCP resource with its scope: should the provider ever issue others
  // (another resource, userinfo), they do not open /v1/mcp.
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.some((a) => typeof a === 'string' && new URL(a, 'http://x').pathname === MCP_RESOURCE_PATH)) throw refused();
  if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes(MCP_SCOPE)) throw refused();
  const grant = await store.db.selectFrom('oauth_grants').selectAll().where('grant_id', '=', record.grant_id).executeTakeFirst();
  if (!grant || grant.revoked_at !== null) throw refused();
  let site: AuthContext['site'] = null;
  if (grant.site_id !== null) {
    const row = await store.db.selectFrom('sites').select(['id', 'name', 'url'])
      .where('id', '=', grant.site_id).where('org_id', '=', grant.org_id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw refused();
    site = row;
  }
  const person = await userAuth(store, grant.user_id, grant.org_id, { jti: null, expiresAt, sessionId: null });
  if (!person) throw refused();
  if (grant.last_used_at === null || now - grant.last_used_at >= OAUTH_LAST_USED_EVERY_MS || now < grant.last_used_at) {
    await store.db.updateTable('oauth_grants').set({ last_used_at: now }).where('id', '=', grant.id).execute();
  }
  const { role } = person.context;
  const mayWrite = grant.access === 'write' && role !== null && roleRank(role) >= roleRank('member');
  return {
    ...person.context,
    kind: 'key',
    site,
    keyType: 'oauth',
    keyId: grant.id,
    scopes: mayWrite ? ['mcp:read', 'manage:write'] : ['mcp:read'],
  };
}

/**
 * How long a verified key is trusted without reading the store again. A revocation, a site's
 * deletion or an org change made by this process clears the cache at once (forgetCredentials);
 * one made by another process takes effect within this time.
 */
export const KEY_CACHE_MS = 5 * SECOND_MS;
/** `last_used_at` is written at most this often per key and process. */
export const LAST_USED_EVERY_MS = MINUTE_MS;

interface CachedKey { auth: AuthContext; expiresAt: number | null; checkedAt: number; lastUsedAt: number | null }

/**
 * Per store (its Kysely instance), verified keys by the key itself: a hit then costs one map
 * lookup instead of an HMAC of the key on every request. Only keys found valid in the store get
 * here, held in this process's memory only, and rechecked every KEY_CACHE_MS.
 */
const keyCaches = new WeakMap<Kysely<Database>, Map<string, CachedKey>>();

/** Drops every cached key of this store: after a revocation, a site deletion or an org change. */
export function forgetCredentials(db: Kysely<Database>) {
  keyCaches.get(db)?.clear();
}

async function authenticateKey(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  let cache = keyCaches.get(store.db);
  if (!cache) keyCaches.set(store.db, cache = new Map());
  let entry = cache.get(token);
  if (!entry || now - entry.checkedAt >= KEY_CACHE_MS || now < entry.checkedAt) {
    cache.delete(token);
    entry = await loadKey(store, keyHashes(secrets, token), now);
    // Bounded: a flood of distinct valid keys cannot grow it past a few thousand entries.
    if (cache.size >= 10_000) cache.clear();
    cache.set(token, entry);
  }
  if (entry.expiresAt !== null && entry.expiresAt <= now) throw new AppError('expired_key', 'The API key has expired');
  if (entry.lastUsedAt === null || now - entry.lastUsedAt >= LAST_USED_EVERY_MS) {
    entry.lastUsedAt = now;
    await store.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', entry.auth.keyId!).execute();
  }
  return entry.auth;
}

/**
 * `hashes`: the key's HMAC under the current secret, then under MALLARD_SECRET_PREVIOUS if set.
 * A key found by its previous-secret HMAC is re-hashed in place under the current secret, so
 * it keeps working once the previous secret is dropped (a key nobody uses during the rotation
 * stops working then: its HMAC cannot be recomputed without the key).
 */
async function loadKey(store: Store, hashes: string[], now: number): Promise<CachedKey> {
  const key = await store.db.selectFrom('api_keys').selectAll().where('key_hash', 'in', hashes).executeTakeFirst();
  if (!key || !hashes.some((hash) => constantTimeEqual(key.key_hash, hash)) || key.revoked_at !== null) {
    throw new AppError('invalid_key', 'The API key is not valid');
  }
  if (!constantTimeEqual(key.key_hash, hashes[0])) {
    // Guarded by the old hash: two processes re-hashing the same key at once write the same value.
    await store.db.updateTable('api_keys').set({ key_hash: hashes[0] }).where('id', '=', key.id).where('key_hash', '=', key.key_hash).execute();
  }
  let site: AuthContext['site'] = null;
  if (key.site_id) {
    const row = await store.db.selectFrom('sites').select(['id', 'name', 'url'])
      .where('id', '=', key.site_id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw new AppError('invalid_key', 'The API key is not valid');
    site = row;
  }
  const org = await orgWithSettings(store, key.org_id);
  if (!org) throw new AppError('invalid_key', 'The API key is not valid');
  const auth: AuthContext = {
    kind: 'key',
    org: { id: org.id, name: org.name, duckFacts: org.duck_facts === 1 },
    site,
    keyType: key.key_type as KeyType,
    keyId: key.id,
    scopes: JSON.parse(key.scopes) as Scope[],
    user: null,
    role: null,
    jti: null,
    tokenExpiresAt: key.expires_at,
    mfaEnrolmentRequired: false,
    sessionId: null,
  };
  return { auth, expiresAt: key.expires_at, checkedAt: now, lastUsedAt: key.last_used_at };
}

async function authenticateJwt(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const claims = await verifyUserToken(secrets, token, now);
  if (!claims) throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  const revoked = await store.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', claims.jti).executeTakeFirst();
  if (revoked) throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  const auth = await userAuth(store, claims.userId, claims.orgId, { jti: claims.jti, expiresAt: claims.expiresAt, sessionId: null });
  // A password change ends every token issued before it (JWTs carry whole seconds).
  if (!auth || (auth.passwordChangedAt !== null && claims.issuedAt < Math.floor(auth.passwordChangedAt / 1000))) {
    throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  }
  return auth.context;
}

/**
 * The dashboard's session cookie: a live session (not ended, within its idle and absolute
 * deadlines) of a current member. A used session's idle deadline moves on, at most once per
 * SESSION_RENEW_EVERY_MS, never past its absolute one.
 */
export async function authenticateSession(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const ended = () => new AppError('invalid_jwt', 'The session has ended; sign in again');
  if (!isSessionToken(token)) throw ended();
  const session = await store.db.selectFrom('web_sessions').selectAll()
    .where('token_hash', 'in', sessionTokenHashes(secrets, token)).executeTakeFirst();
  if (!session || session.expires_at <= now || session.absolute_expires_at <= now) throw ended();
  let expiresAt = session.expires_at;
  if (now - session.last_seen_at >= SESSION_RENEW_EVERY_MS) {
    expiresAt = Math.min(now + SESSION_IDLE_MS, session.absolute_expires_at);
    await store.db.updateTable('web_sessions').set({ last_seen_at: now, expires_at: expiresAt })
      .where('id', '=', session.id).execute();
  }
  const auth = await userAuth(store, session.user_id, session.org_id, { jti: null, expiresAt, sessionId: session.id, sso: session.method === 'sso' });
  if (!auth) throw ended();
  return auth.context;
}

/** A user's credential in an org, or null when the user is no longer its member. */
async function userAuth(store: Store, userId: string, orgId: string, credential: { jti: string | null; expiresAt: number; sessionId: string | null; sso?: boolean }) {
  // Membership and role are read on every request, so a change takes effect at once.
  const member = await store.db.selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.email', 'users.password_changed_at', 'memberships.role'])
    .where('memberships.org_id', '=', orgId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
  const org = member ? await orgWithSettings(store, orgId) : undefined;
  if (!member || !org) return null;
  // Only a user the org's 2FA policy covers costs a look at their second factor. A session
  // opened by single sign-on is not asked to enrol: the identity provider's sign-in (and its
  // MFA) is the proof, and Mallard never asks an SSO sign-in for a code (features/sso).
  const mfaEnrolmentRequired = !credential.sso && mfaPolicyCovers(require2faOf(org.require_2fa), member.role as Role)
    && !(await store.db.selectFrom('user_mfa').select('user_id').where('user_id', '=', userId).where('confirmed_at', 'is not', null).executeTakeFirst());
  const context: AuthContext = {
    kind: 'jwt',
    org: { id: org.id, name: org.name, duckFacts: org.duck_facts === 1 },
    site: null,
    keyType: 'jwt',
    keyId: null,
    scopes: [],
    user: { id: member.user_id, email: member.email },
    role: member.role as Role,
    jti: credential.jti,
    tokenExpiresAt: credential.expiresAt,
    mfaEnrolmentRequired,
    sessionId: credential.sessionId,
  };
  return { context, passwordChangedAt: member.password_changed_at };
}
