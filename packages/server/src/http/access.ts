// What a route demands of its caller (access); who the caller is comes from
// domain/authenticate.ts. Each route declares its needs once in `config.access`; the hooks
// in app.ts enforce them in the order DESIGN.md fixes: 401s, then body errors, then id
// format, then 403s.
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../auth/api-keys.ts';
import { AppError } from '../domain/errors.ts';
import { roleRank, type AuthContext, type Role } from '../domain/context.ts';
import { bearerOf } from '../domain/authenticate.ts';

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
  /**
   * Open to a user the org requires to sign in with two factors who has not enrolled yet (what
   * enrolment needs: whoami, the 2FA status, setup and enable, logout). Every other route
   * answers such a user 403 mfa_enrolment_required.
   */
  duringMfaEnrolment?: boolean;
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

/** The 403 checks of a route: org scope, key scopes, user role. */
export function authorize(auth: AuthContext, access: Access): void {
  if (auth.mfaEnrolmentRequired && !access.duringMfaEnrolment) {
    throw new AppError('mfa_enrolment_required', 'The org requires two-factor sign-in for this account: set it up first (POST /v1/auth/2fa/setup, then /v1/auth/2fa/enable)');
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
