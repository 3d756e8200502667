// Who an MCP exchange is for: the service context of the request that carries it (the caller,
// the store, the time) and the site tools use when their `site_id` is omitted (the endpoint's
// `?site_id=`, which `mallard mcp` sets from MALLARD_SITE_ID for org-level credentials).
import type { AuthContext, ServiceContext } from '../domain/context.ts';
import { admits, WRITE_ACCESS } from '../domain/operation.ts';

export interface McpSession {
  ctx: ServiceContext;
  siteId?: string;
  /** MALLARD_PUBLIC_URL: the base of the dashboard links beside ids (dashboard-links.ts). */
  publicUrl: string;
  /** Counts one call that reads data against the credential's MCP budget, or throws rate_limited (rate-budget.ts). */
  spend?: () => Promise<void>;
}

/** Whether the credential may write (the catalog's rule for writes): what prompts offer. */
export const mayWrite = (auth: AuthContext): boolean => admits(auth, WRITE_ACCESS);

/** The site to read: the one given, else the session's default (else the key's own, in the service). */
export const siteOf = (session: McpSession, given: unknown): string | undefined =>
  typeof given === 'string' && given !== '' ? given : session.siteId;
