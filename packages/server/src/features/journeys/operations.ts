// The journey operations: where moving between pages hurts, and the page-to-page flows.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { Flows, FlowsQuery, FrictionMap, FrictionQuery } from './schemas.ts';
import { frictionMap } from './friction-map.ts';
import { flows } from './flows.ts';

export const frictionMapOp = defineOperation({
  name: 'journeys.friction',
  summary: 'Friction journey map: page transitions where users struggled',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/journeys/friction', surface: 'query', tags: ['query'] },
  input: { query: FrictionQuery },
  output: FrictionMap,
  run: (ctx, input) => frictionMap({ ctx, input }),
});

export const flowsOp = defineOperation({
  name: 'journeys.flows',
  summary: 'Page-to-page navigation edges with transition and session counts',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/flows', surface: 'query', tags: ['query'] },
  input: { query: FlowsQuery },
  output: Flows,
  run: (ctx, input) => flows({ ctx, input }),
});

export const JOURNEY_OPERATIONS = [frictionMapOp, flowsOp];
