// Who is calling, and the context every service call carries. Authentication
// (domain/authenticate.ts) builds the AuthContext; routes, MCP tools and CLI commands each
// build a ServiceContext from it and pass it to services, which take tenancy and audit
// attribution from it, never from input.
import type { Kysely } from 'kysely';
import type { Scope, KeyType } from '../auth/api-keys.ts';
import type { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import type { RateLimiter } from '../store/rate-limit.ts';
import type { ReadCache } from '../store/read-cache.ts';
import type { Database } from '../store/tables.ts';
import { AppError } from './errors.ts';
import type { TargetPolicy } from './outbound-targets.ts';

export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const roleRank = (role: Role) => ROLES.indexOf(role);

export interface AuthContext {
  /**
   * 'jwt': a user, signed in by a bearer JWT or by the dashboard's session cookie (sessionId).
   * 'operator': whoever runs a CLI command on the server (`mallard keys`, `mallard privacy`):
   * they hold the store and MALLARD_SECRET already, so they act as an owner of the org the
   * command names (`operatorAuth`), audited as the system (actorOf).
   */
  kind: 'key' | 'jwt' | 'operator';
  org: { id: string; name: string; duckFacts: boolean };
  /** The key's own site; null for org-scoped keys and user JWTs. */
  site: { id: string; name: string; url: string } | null;
  /**
   * 'oauth': an OAuth access token Mallard issued (kind 'key', keyId the connection's id in
   * oauth_grants, user and role the person who approved it); taken by the MCP endpoint only.
   */
  keyType: KeyType | 'jwt' | 'oauth' | 'operator';
  keyId: string | null;
  scopes: Scope[];
  user: { id: string; email: string } | null;
  role: Role | null;
  jti: string | null;
  tokenExpiresAt: number | null;
  /**
   * A user whose org requires two factors of them and who has none confirmed: only the routes
   * enrolment needs answer them (http/access.ts). Always false for keys.
   */
  mfaEnrolmentRequired: boolean;
  /** The dashboard session (the `mallard_session` cookie) the user is signed in by; null for bearer credentials. */
  sessionId: string | null;
}

/** A logger with pino's shape; services log through it, never through console. */
export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * The app's shared pieces a service may need beyond its call's database and time: the
 * configuration, the secrets (sealing credentials, signing), the policy outbound targets are
 * checked against, and the store, clock and rate limiter (a delivery sent now, outside the
 * request's transaction). One set per app (http/app-types.ts hangs it on the Fastify
 * instance); a face hands them to an operation as its context's `parts` (the CLI those it has),
 * and `run` reads the one it needs with `partOf`.
 */
export interface AppServices {
  config: Config;
  store: Store;
  clock: Clock;
  secrets: Secrets;
  targets: TargetPolicy;
  limiter: RateLimiter;
}

export interface ServiceContext {
  auth: AuthContext;
  db: Kysely<Database>;
  /**
   * For heavy reads of a write that need not see the request's own writes and may wait (a
   * deploy's before-rates): the store's backgroundReadDb, on SQLite off the main thread and
   * off the routes' readers. Absent: db.
   */
  backgroundReadDb?: Kysely<Database>;
  /**
   * The main connection where `db` is the read one (GET routes of the query surface): for the
   * audit row a bulk read of visitors' data leaves. Absent: db.
   */
  writeDb?: Kysely<Database>;
  /** Pure reads only (GET routes of the query surface): the store's read cache, used through cachedRead. */
  readCache?: ReadCache;
  /** The time of the request, from the injected clock. */
  now: number;
  requestId: string;
  /** The client's address as TRUST_PROXY decides it; absent outside HTTP (the CLI). */
  ip?: string;
  log: Log;
  /** What this call has resolved so far (runOperation makes it); absent outside an operation's call. */
  memo?: CallMemo;
  /** The app's services a few operations need (read them with `partOf`): HTTP and MCP pass the app's, the CLI those it has. */
  parts?: Partial<AppServices>;
}

/** One of the call's process parts; a face that runs an operation without the part it needs is a bug, not the caller's fault. */
export function partOf<K extends keyof AppServices>(ctx: Pick<ServiceContext, 'parts'>, part: K): AppServices[K] {
  const value = ctx.parts?.[part];
  if (value === undefined) throw new AppError('internal_error', `This call was made without the process's ${part}`);
  return value as AppServices[K];
}

/**
 * What one call has resolved, kept so that nothing is resolved twice in it: sites by id
 * (tenancy.ts) and a site's production settings (site-settings.ts). Made fresh for each call
 * (domain/operation.ts, withCallMemo); never shared between calls, so a write is always seen
 * by the next call.
 */
export interface CallMemo {
  sites: Map<string, Promise<unknown>>;
  settings: Map<string, Promise<unknown>>;
}

/** The context of a call that has no authenticated caller yet (login, set-password). */
export type PublicContext = Omit<ServiceContext, 'auth'>;

/**
 * The operator at the terminal, acting in one org (the one the CLI command names): an owner of
 * it for the access checks (domain/operation.ts, checkAccess), never a key or a user.
 */
export function operatorAuth(org: { id: string; name: string }): AuthContext {
  return {
    kind: 'operator', org: { id: org.id, name: org.name, duckFacts: false }, site: null, keyType: 'operator', keyId: null,
    scopes: [], user: null, role: 'owner', jti: null, tokenExpiresAt: null, mfaEnrolmentRequired: false, sessionId: null,
  };
}

/** Who acted, for the audit log and activity records: the operator is the system, labelled 'cli' (a key's created_by). */
export function actorOf(auth: AuthContext): { type: 'user' | 'key' | 'system'; id: string | null; label: string } {
  if (auth.kind === 'operator') return { type: 'system', id: null, label: 'cli' };
  if (auth.user) return { type: 'user', id: auth.user.id, label: auth.user.email };
  return { type: 'key', id: auth.keyId, label: `key:${auth.keyId}` };
}
