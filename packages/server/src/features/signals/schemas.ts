// The signal registry as a site scores it (the mallard://signals resource).
import { Type } from '@sinclair/typebox';

export const SignalWeights = Type.Object({
  site_id: Type.String(),
  fallback_weight: Type.Number({ description: 'The weight of any type the registry does not know' }),
  signals: Type.Array(Type.Object({
    type: Type.String(),
    tier: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3), Type.Literal('revenue'), Type.Null()], { description: 'null for a custom type' }),
    default_weight: Type.Number(),
    weight: Type.Number({ description: 'What the site scores it with; 0 switches it off' }),
    custom: Type.Boolean({ description: 'Whether the site set its own weight' }),
    journey_edge: Type.Boolean({ description: 'Whether it decorates friction journey edges (tiers 1 and 2)' }),
    heatmap: Type.Boolean({ description: 'Whether it makes heatmap points' }),
  })),
});
