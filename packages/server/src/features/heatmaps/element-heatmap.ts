// Where inside one element users struggled: points as fractions of its box (never pixels).
import type { Static } from '@sinclair/typebox';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { cleanSelector } from '../../domain/normalize.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { heatmapFilters, heatmapSignals } from './heatmap-signals.ts';
import type { ElementHeatmapQuery } from './schemas.ts';

export const ELEMENT_HEATMAP_MAX = 300;

export async function elementHeatmap({ ctx, input }: { ctx: ServiceContext; input: Static<typeof ElementHeatmapQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const filters = heatmapFilters(input, ctx.now);
  const page = await pageParam(ctx, site.id, input.page);
  // Cleaned as ingest cleans stored selectors, so a selector that held personal data still matches.
  const selector = cleanSelector(input.selector);
  return cachedRead(ctx, ['element-heatmap', site.id, page, selector, input], async () => {
    const rows = await heatmapSignals(ctx.db, site.id, page, filters)
      .where('element', '=', selector).where('rx', 'is not', null)
      .select(['rx', 'ry', 'signal_type']).limit(ELEMENT_HEATMAP_MAX).execute();
    const points = rows.map((r) => ({ rx: r.rx!, ry: r.ry!, signal: r.signal_type }));
    return { page, selector, count: points.length, points };
  });
}
