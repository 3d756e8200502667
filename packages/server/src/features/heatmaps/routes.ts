// GET /v1/query/element-heatmap and /v1/query/page-heatmap: click-based friction points,
// most recent first, as fractions (never pixels).
import type { App } from '../../http/app-types.ts';
import { Envelope, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { ElementHeatmap, ElementHeatmapQuery, PageHeatmap, PageHeatmapQuery } from './schemas.ts';
import { elementHeatmap } from './element-heatmap.ts';
import { pageHeatmap } from './page-heatmap.ts';

export async function heatmapRoutes(app: App) {
  app.get('/query/element-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where inside one element users struggled (up to 300 points)',
      querystring: ElementHeatmapQuery,
      response: { 200: Envelope(ElementHeatmap) },
    },
  }, async (request, reply) => okOnce(reply, await elementHeatmap({ ctx: contextOf(request), input: request.query })));

  app.get('/query/page-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where in the viewport users struggled on a page (up to 500 points)',
      querystring: PageHeatmapQuery,
      response: { 200: Envelope(PageHeatmap) },
    },
  }, async (request, reply) => okOnce(reply, await pageHeatmap({ ctx: contextOf(request), input: request.query })));
}
