// What a route demands of its caller (access); who the caller is comes from
// domain/authenticate.ts. Each route declares its needs once in `config.access`; the hooks
// in app.ts enforce them in the order DESIGN.md fixes: 401s, then body errors, then id
// format, then 403s.
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../domain/context.ts';
import { checkAccess, type OperationAccess } from '../domain/operation.ts';
import { bearerOf } from '../domain/authenticate.ts';

export type Surface = 'query' | 'manage' | 'auth' | 'ingest' | 'public';

/** A route's access: the catalog's rule (scopes, role, key type, org scope, MFA enrolment), and what only HTTP knows. */
export interface Access extends OperationAccess {
  surface: Surface;
  /** Whether a write needs a JSON body (default: required for POST, PATCH and PUT). */
  bodyRequired?: boolean;
  /** The route counts its own calls (the MCP endpoint: tool calls per credential, mcp/rate-budget.ts), not the surface's requests. */
  ownRateLimit?: boolean;
  /** The route also takes an OAuth access token Mallard issued (features/oauth): the MCP endpoint only. */
  oauth?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig { access?: Access }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The route's access rule, read once per request by the onRequest hook (app.ts); null for an unmatched request. */
    access: Access | null;
  }
}

/** The bearer token, or a 401 `missing_auth` for an absent, empty or non-Bearer header. */
export const bearerToken = (request: FastifyRequest): string => bearerOf(request.headers.authorization);

/** The 403 checks of a route: the catalog's own (domain/operation.ts), so a route and the operation it serves decide alike. */
export const authorize = (auth: AuthContext, access: Access): void => checkAccess(auth, access);
