// GET /v1/query/journeys/friction and /v1/query/flows: how users move between pages, and
// where that movement hurts.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { FlowsQuery, FrictionQuery } from './schemas.ts';
import { frictionMap } from './friction-map.ts';
import { flows } from './flows.ts';

const Example = Type.Object({ session_id: Type.String(), page: Type.String(), signal_type: Type.String(), element_selector: Type.String(), occurred_at: Type.String() });
const FrictionEdge = Type.Object({
  from: Type.String(), to: Type.String(), sessions: Type.Integer(), friction_weight: Type.Number(),
  signals: Type.Record(Type.String(), Type.Integer()), examples: Type.Array(Example),
});
const FlowEdge = Type.Object({ from: Type.String(), to: Type.String(), transitions: Type.Integer(), sessions: Type.Integer() });

export async function journeyRoutes(app: App) {
  app.get('/query/journeys/friction', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Friction journey map: page transitions where users struggled',
      querystring: FrictionQuery,
      response: { 200: Envelope(Type.Object({ site_id: Type.String(), sessions_analyzed: Type.Integer(), edges: Type.Array(FrictionEdge) })) },
    },
  }, async (request) => ok(await frictionMap({ ctx: contextOf(request), input: request.query })));

  app.get('/query/flows', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Page-to-page navigation edges with transition and session counts',
      querystring: FlowsQuery,
      response: { 200: Envelope(Type.Object({ site_id: Type.String(), days: Type.Integer(), sessions_analyzed: Type.Integer(), edges: Type.Array(FlowEdge) })) },
    },
  }, async (request) => ok(await flows({ ctx: contextOf(request), input: request.query })));
}
