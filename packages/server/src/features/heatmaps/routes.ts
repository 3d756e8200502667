// GET /v1/query/element-heatmap and /v1/query/page-heatmap: click-based friction points,
// most recent first, as fractions (never pixels).
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { ElementHeatmapQuery, PageHeatmapQuery } from './schemas.ts';
import { elementHeatmap } from './element-heatmap.ts';
import { pageHeatmap } from './page-heatmap.ts';

const ElementPoint = Type.Object({ rx: Type.Number(), ry: Type.Number(), signal: Type.String() });
const PagePoint = Type.Object({ vx: Type.Number(), vy: Type.Number(), signal: Type.String(), el: Type.Optional(Type.String()) });

export async function heatmapRoutes(app: App) {
  app.get('/query/element-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where inside one element users struggled (up to 300 points)',
      querystring: ElementHeatmapQuery,
      response: { 200: Envelope(Type.Object({ page: Type.String(), selector: Type.String(), count: Type.Integer(), points: Type.Array(ElementPoint) })) },
    },
  }, async (request) => ok(await elementHeatmap({ ctx: contextOf(request), input: request.query })));

  app.get('/query/page-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where in the viewport users struggled on a page (up to 500 points)',
      querystring: PageHeatmapQuery,
      response: { 200: Envelope(Type.Object({ page: Type.String(), count: Type.Integer(), points: Type.Array(PagePoint) })) },
    },
  }, async (request) => ok(await pageHeatmap({ ctx: contextOf(request), input: request.query })));
}
