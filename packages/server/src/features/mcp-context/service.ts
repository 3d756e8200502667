// The MCP context service: the site within the caller's tenancy, then its capped summary.
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { siteContext } from './site-context.ts';

export async function getSiteContext({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['mcp-context', site.id, input], () => siteContext(ctx.db, site, ctx.now));
}
