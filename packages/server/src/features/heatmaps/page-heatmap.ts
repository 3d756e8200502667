// Where in the viewport users struggled on a page: points as fractions of the viewport,
// with the clicked element's selector when it is known.
import type { Static } from '@sinclair/typebox';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { heatmapFilters, heatmapSignals } from './heatmap-signals.ts';
import type { PageHeatmapQuery } from './schemas.ts';

export const PAGE_HEATMAP_MAX = 500;

export async function pageHeatmap({ ctx, input }: { ctx: ServiceContext; input: Static<typeof PageHeatmapQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const filters = heatmapFilters(input, ctx.now);
  const page = await pageParam(ctx, site.id, input.page);
  return cachedRead(ctx, ['page-heatmap', site.id, page, input], async () => {
    const rows = await heatmapSignals(ctx.db, site.id, page, filters)
      .where('vx', 'is not', null)
      .select(['vx', 'vy', 'signal_type', 'element']).limit(PAGE_HEATMAP_MAX).execute();
    const points = rows.map((r) => (r.element ? { vx: r.vx!, vy: r.vy!, signal: r.signal_type, el: r.element } : { vx: r.vx!, vy: r.vy!, signal: r.signal_type }));
    return { page, count: points.length, points };
  });
}
