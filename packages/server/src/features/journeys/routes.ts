// GET /v1/query/journeys/friction and /v1/query/flows: how users move between pages, and
// where that movement hurts.
import type { App } from '../../http/app-types.ts';
import { Envelope, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { Flows, FlowsQuery, FrictionMap, FrictionQuery } from './schemas.ts';
import { frictionMap } from './friction-map.ts';
import { flows } from './flows.ts';

export async function journeyRoutes(app: App) {
  app.get('/query/journeys/friction', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Friction journey map: page transitions where users struggled',
      querystring: FrictionQuery,
      response: { 200: Envelope(FrictionMap) },
    },
  }, async (request, reply) => okOnce(reply, await frictionMap({ ctx: contextOf(request), input: request.query })));

  app.get('/query/flows', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Page-to-page navigation edges with transition and session counts',
      querystring: FlowsQuery,
      response: { 200: Envelope(Flows) },
    },
  }, async (request, reply) => okOnce(reply, await flows({ ctx: contextOf(request), input: request.query })));
}
