// The journey routes' query strings and answers; the readers (and the MCP tools) take and
// return the same shapes.
import { Type } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { SiteIdParam } from '../../domain/schema-parts.ts';

export const FrictionQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 250, description: 'Most recent sessions analyzed' }),
  min_friction_weight: Type.Number({ minimum: 0, maximum: 1000, default: 1, description: 'Leave out edges whose combined weight is below this (0 to 1000, default 1)' }),
  signal_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'Only this signal type, e.g. rage_click (default: every tier-1 and tier-2 type)' })),
  ...ReadFilterQuery,
});

export const FlowsQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  days: Type.Integer({ minimum: 1, maximum: 90, default: 7, description: 'Days looked back when from is not given (1 to 90, default 7)' }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Most edges returned' }),
  ...ReadFilterQuery,
});

const Example = Type.Object({ session_id: Type.String(), page: Type.String(), signal_type: Type.String(), element_selector: Type.String(), occurred_at: Type.String() });
const FrictionEdge = Type.Object({
  from: Type.String(), to: Type.String(), sessions: Type.Integer(), friction_weight: Type.Number(),
  signals: Type.Record(Type.String(), Type.Integer(), { description: 'Signal count per signal type on this step' }), examples: Type.Array(Example),
});
const FlowEdge = Type.Object({ from: Type.String(), to: Type.String(), transitions: Type.Integer(), sessions: Type.Integer() });

export const FrictionMap = Type.Object({ site_id: Type.String(), sessions_analyzed: Type.Integer(), edges: Type.Array(FrictionEdge) });
export const Flows = Type.Object({ site_id: Type.String(), days: Type.Integer(), sessions_analyzed: Type.Integer(), edges: Type.Array(FlowEdge) });
