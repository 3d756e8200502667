// Who is calling (authentication) and what a route demands of them (access).
// Each route declares its needs once in `config.access`; the hooks in app.ts enforce them
// in the order DESIGN.md fixes: 401s, then body errors, then id format, then 403s.
import type { FastifyRequest } from 'fastify';
import { keyTypeOf, hashKey, type KeyType, type Scope } from '../auth/api-keys.ts';
import { verifyUserToken } from '../auth/jwt.ts';
import { constantTimeEqual, type Secrets } from '../auth/secrets.ts';
import type { Store } from '../store/db.ts';
import { AppError } from '../domain/errors.ts';
import { roleRank, type AuthContext, type Role } from '../domain/context.ts';

export type Surface = 'query' | 'manage' | 'auth' | 'ingest' | 'public';

export interface Access {
  surface: Surface;
  /** Key scopes that satisfy the route (any one of them). */
  scopes?: readonly Scope[];
  /** The lowest role a user JWT needs. */
  role?: Role;
  jwtOnly?: boolean;
  orgScope?: boolean;
  /** Whether a write needs a JSON body (default: required for POST, PATCH and PUT). */
  bodyRequired?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig { access?: Access }
  interface FastifyRequest { auth: AuthContext | null }
}

/** The bearer token, or a 401 `missing_auth` for an absent, empty or non-Bearer header. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new AppError('missing_auth', 'Authorization header with a Bearer token is required');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('missing_auth', 'Authorization must be "Bearer <token>"');
  return match[1];
}

async function orgWithSettings(store: Store, orgId: string) {
  return store.db.selectFrom('orgs')
    .leftJoin('org_settings', 'org_settings.org_id', 'orgs.id')
    .select(['orgs.id', 'orgs.name', 'org_settings.duck_facts'])
    .where('orgs.id', '=', orgId)
    .executeTakeFirst();
}

/** Resolves a token to its credential, or throws the 401 that fits. */
export async function authenticate(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const keyType = keyTypeOf(token);
  if (keyType) return authenticateKey(store, secrets, token, now);
  if (token.split('.').length === 3) return authenticateJwt(store, secrets, token, now);
  throw new AppError('invalid_key', 'The API key is not valid');
}

async function authenticateKey(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const hash = hashKey(secrets, token);
  const key = await store.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
  if (!key || !constantTimeEqual(key.key_hash, hash) || key.revoked_at !== null) {
    throw new AppError('invalid_key', 'The API key is not valid');
  }
  if (key.expires_at !== null && key.expires_at <= now) throw new AppError('expired_key', 'The API key has expired');
  let site: AuthContext['site'] = null;
  if (key.site_id) {
    const row = await store.db.selectFrom('sites').select(['id', 'name', 'url'])
      .where('id', '=', key.site_id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw new AppError('invalid_key', 'The API key is not valid');
    site = row;
  }
  const org = await orgWithSettings(store, key.org_id);
  if (!org) throw new AppError('invalid_key', 'The API key is not valid');
  return {
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
  };
}

async function authenticateJwt(store: Store, secrets: Secrets, token: string, now: number): Promise<AuthContext> {
  const claims = await verifyUserToken(secrets, token, now);
  if (!claims) throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  const revoked = await store.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', claims.jti).executeTakeFirst();
  if (revoked) throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  // Membership and role are read on every request, so a change takes effect at once.
  const member = await store.db.selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.email', 'memberships.role'])
    .where('memberships.org_id', '=', claims.orgId)
    .where('memberships.user_id', '=', claims.userId)
    .executeTakeFirst();
  const org = member ? await orgWithSettings(store, claims.orgId) : undefined;
  if (!member || !org) throw new AppError('invalid_jwt', 'The token is invalid or has expired');
  return {
    kind: 'jwt',
    org: { id: org.id, name: org.name, duckFacts: org.duck_facts === 1 },
    site: null,
    keyType: 'jwt',
    keyId: null,
    scopes: [],
    user: { id: member.user_id, email: member.email },
    role: member.role as Role,
    jti: claims.jti,
    tokenExpiresAt: claims.expiresAt,
  };
}

/** The 403 checks of a route: org scope, key scopes, user role. */
export function authorize(auth: AuthContext, access: Access): void {
  if (access.orgScope && auth.site) {
    throw new AppError('org_scope_required', 'This route needs an org-scoped credential');
  }
  if (auth.kind === 'key') {
    const scopes = access.scopes ?? [];
    if (scopes.length > 0 && !scopes.some((s) => auth.scopes.includes(s))) {
      throw new AppError('missing_scope', `This route needs the scope ${scopes.join(' or ')}`, { required: [...scopes] });
    }
  } else if (access.role && roleRank(auth.role!) < roleRank(access.role)) {
    throw new AppError('insufficient_role', `This route needs the role ${access.role} or higher`, { required: access.role });
  }
}
