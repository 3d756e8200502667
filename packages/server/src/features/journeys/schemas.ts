import { Type } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';

export const FrictionQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 250, description: 'Most recent sessions analyzed' }),
  min_friction_weight: Type.Number({ minimum: 0, maximum: 1000, default: 1 }),
  signal_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' })),
  ...ReadFilterQuery,
});

export const FlowsQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  days: Type.Integer({ minimum: 1, maximum: 90, default: 7 }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Most edges returned' }),
  ...ReadFilterQuery,
});
