// Revenue services: the site's monthly revenue at risk (computed in pipeline/revenue.ts) and
// the fix list built on it, each for a site within the caller's tenancy.
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';
import { fixList } from './recommendations.ts';

export async function getRevenueAtRisk({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['revenue', site.id, input], () => revenueAtRisk(ctx.db, site.id, ctx.now));
}

export async function getRecommendations({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; limit: number } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['recommendations', site.id, input], () => fixList(ctx.db, site.id, ctx.now, input.limit));
}
