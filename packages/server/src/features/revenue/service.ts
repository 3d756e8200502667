// Revenue services: the site's monthly revenue at risk (computed in pipeline/revenue.ts) and
// the fix list built on it, each for a site within the caller's tenancy.
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';
import { fixList } from './recommendations.ts';

export async function getRevenueAtRisk({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return revenueAtRisk(ctx.db, site.id, ctx.now);
}

export async function getRecommendations({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; limit: number } }) {
  const site = await resolveSite(ctx, input.site_id);
  return fixList(ctx.db, site.id, ctx.now, input.limit);
}
