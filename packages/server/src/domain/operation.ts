// The operation catalog's shape and its runner. An operation is declared once, in its feature
// folder (`features/<x>/operations.ts`): its name, a one-line summary, the access it demands,
// its input (by part: path parameters, query string, body, as the route reads them), its
// output schema and the service call. The faces are derived from it: the HTTP route
// (http/operation-route.ts), the MCP tool (mcp/tool-kit.ts) and a CLI command where one exists.
// Every face calls it through `runOperation`, which checks the caller's access and site scope
// the same way for all of them before `run`, and gives the call its own memo of what it resolved
// (`CallMemo`: the site, its settings), so nothing is resolved twice in one call.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Scope } from '../auth/api-keys.ts';
import { roleRank, type AuthContext, type Role, type ServiceContext } from './context.ts';
import { AppError, type ErrorCode } from './errors.ts';
import { siteInScope } from './tenancy.ts';

/** An operation's input, by part: what a route reads from its path, query string and body, and what a tool's arguments are made of. */
export interface InputParts { params?: TObject; query?: TObject; body?: TObject }

type PartInput<T> = T extends TObject ? Static<T> : unknown;
/** The input `run` receives: every part's fields in one object. */
export type OperationInput<P extends InputParts> = PartInput<P['params']> & PartInput<P['query']> & PartInput<P['body']>;

/** What an operation demands of its caller. The 403s are decided here for every face. */
export interface OperationAccess {
  /** Key scopes that satisfy the operation (any one of them). */
  scopes?: readonly Scope[];
  /** The lowest role a user needs. */
  role?: Role;
  /** A user credential only (a JWT or the dashboard's session), never a key. */
  jwtOnly?: boolean;
  /** An org-scoped credential only (a site-scoped key is refused). */
  orgScope?: boolean;
  /**
   * Open to a user the org requires to sign in with two factors who has not enrolled yet (what
   * enrolment needs: whoami, the 2FA status, setup and enable, logout). Every other operation
   * answers such a user 403 mfa_enrolment_required.
   */
  duringMfaEnrolment?: boolean;
}

/** Reads: a key with query:read or mcp:read, any user. */
export const READ_ACCESS = { scopes: ['query:read', 'mcp:read'], role: 'viewer' } as const satisfies OperationAccess;
/** Writes of the manage surface: a key with manage:write, a member or higher. */
export const WRITE_ACCESS = { scopes: ['manage:write'], role: 'member' } as const satisfies OperationAccess;

/**
 * Where an operation sits in the HTTP API (http/operation-route.ts derives the route from it):
 * method, path under /v1, surface (rate limits, the read connection of query GETs), the
 * OpenAPI tags and the success status. Absent: the operation has no route (an MCP-only one).
 */
export interface HttpBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify's pattern under /v1, e.g. `/query/issues/:issue_id`. */
  path: string;
  surface: 'query' | 'manage' | 'auth';
  tags: readonly string[];
  /** The success status (default 200). */
  status?: 200 | 201;
  /** Whether the write needs a JSON body (default: required for POST, PATCH and PUT). */
  bodyRequired?: boolean;
  /** 'json': the answer is sent as JSON.stringify makes it, not through the response schema's serializer (rows of open schemas, /query/raw). */
  send?: 'json';
  /**
   * The answer is a file streamed as an attachment, not the JSON envelope: `run` returns a
   * `Download`, sent with this media type (charset utf-8) and its filename, never cached; the
   * OpenAPI document shows `output` under the media type with this description.
   */
  download?: { mediaType: 'text/csv' | 'application/json'; description: string };
  /** Error codes `run` answers beyond those the access rule and the schemas imply (e.g. 409 `conflict`): the OpenAPI document lists them. */
  errors?: readonly ErrorCode[];
  /** Query parameters of which a request must give exactly one (`run` checks it: 400 `invalid_input` otherwise): the OpenAPI document says so. */
  exactlyOneOf?: readonly string[];
}

/** What an operation with a `download` binding answers: the file's name and its text, a piece at a time (read as it is sent). */
export interface Download { filename: string; chunks: AsyncIterable<string> }

export interface Operation<P extends InputParts = InputParts, D = unknown> {
  /** Unique across the catalog; the MCP tool and CLI command of the operation are named apart (they are the face's words). */
  name: string;
  summary: string;
  access: OperationAccess;
  input: P;
  output: TSchema;
  http?: HttpBinding;
  /** A write: changes data (MCP lists it only to credentials it admits, and says whether a retry is harmless). */
  write?: { idempotent: boolean };
  run(ctx: ServiceContext, input: OperationInput<P>): Promise<D>;
}

/** Declares an operation (typing `run`'s input from the schemas). */
export const defineOperation = <P extends InputParts, D>(op: Operation<P, D>): Operation<P, D> => op;

/**
 * The 403 checks of an operation (or a route), in order: MFA enrolment, key type, org scope,
 * key scopes, user role. The operator at the terminal (kind 'operator', the CLI) passes every
 * one: whoever can run the CLI on the server holds the store and MALLARD_SECRET, so they are an
 * owner of the org their command names; tenancy still holds (the services resolve sites and
 * rows in that org only).
 */
export function checkAccess(auth: AuthContext, access: OperationAccess): void {
  if (auth.kind === 'operator') return;
  if (auth.mfaEnrolmentRequired && !access.duringMfaEnrolment) {
    throw new AppError('mfa_enrolment_required', 'The org requires two-factor sign-in for this account: set it up first (POST /v1/auth/2fa/setup, then /v1/auth/2fa/enable)');
  }
  if (access.jwtOnly && auth.kind !== 'jwt') {
    throw new AppError('jwt_required', 'This route needs a user token (POST /v1/auth/login)');
  }
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

/** Whether the caller passes an operation's access checks (what MCP lists to a credential). */
export function admits(auth: AuthContext, access: OperationAccess): boolean {
  try {
    checkAccess(auth, access);
    return true;
  } catch {
    return false;
  }
}

/** The context with a memo of its own for one call (an operation run inside another operation's call shares that call's memo). */
export const withCallMemo = <C extends ServiceContext>(ctx: C): C =>
  ctx.memo ? ctx : { ...ctx, memo: { sites: new Map(), settings: new Map() } };

/**
 * Runs an operation for a caller: its access first (the 403s), then its site scope, then the
 * face's own checks of the input if it has any (`prepare`: MCP's known-page check), then
 * `run`, all with one memo for the call. The site scope: a non-empty `site_id` in the input is
 * resolved by `siteInScope` (another org's site is 404, a sibling of a site-scoped key's own
 * site 403), so every face refuses alike before `run`, and the service's own `resolveSite`
 * finds the site in the call's memo instead of reading it again.
 */
export async function runOperation<P extends InputParts, D>(
  op: Operation<P, D>, ctx: ServiceContext, input: OperationInput<P>, prepare?: (ctx: ServiceContext) => Promise<void>,
): Promise<D> {
  checkAccess(ctx.auth, op.access);
  const call = withCallMemo(ctx);
  const siteId = (input as { site_id?: unknown }).site_id;
  if (typeof siteId === 'string' && siteId !== '') await siteInScope(call, siteId);
  if (prepare) await prepare(call);
  return op.run(call, input);
}
