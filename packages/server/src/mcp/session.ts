// Who an MCP exchange is for: the service context of the request that carries it (the caller,
// the store, the time) and the site tools use when their `site_id` is omitted (the endpoint's
// `?site_id=`, which `mallard mcp` sets from MALLARD_SITE_ID for org-level credentials).
import type { AuthContext, ServiceContext } from '../domain/context.ts';
import { roleRank } from '../domain/context.ts';

export interface McpSession {
  ctx: ServiceContext;
  siteId?: string;
  /** MALLARD_PUBLIC_URL: the base of the dashboard links beside ids (dashboard-links.ts). */
  publicUrl: string;
  /** Counts one call that reads data against the credential's MCP budget, or throws rate_limited (rate-budget.ts). */
  spend?: () => Promise<void>;
}

/** The write tools need what their routes need: `manage:write` on a key, `member` for a user. */
export function mayWrite(auth: AuthContext): boolean {
  if (auth.kind === 'key') return auth.scopes.includes('manage:write');
  return auth.role !== null && roleRank(auth.role) >= roleRank('member');
}

/** The site to read: the one given, else the session's default (else the key's own, in the service). */
export const siteOf = (session: McpSession, given: unknown): string | undefined =>
  typeof given === 'string' && given !== '' ? given : session.siteId;
