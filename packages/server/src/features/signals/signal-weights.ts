// The signal types with their tiers and the weights a site scores them with: the registry's
// defaults with the site's custom weights merged over them (DOMAIN §1). The MCP resource
// mallard://signals reads it, so an assistant can explain a score from its breakdown.
import type { Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../domain/context.ts';
import { loadSignalWeights } from '../../domain/site-config.ts';
import { FALLBACK_WEIGHT, isEdgeDecorator, KNOWN_SIGNAL_TYPES, tierOf, weightResolver, HEATMAP_SIGNAL_TYPES } from '../../domain/signals.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { SignalWeights } from './schemas.ts';

export async function signalWeights({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }): Promise<Static<typeof SignalWeights>> {
  const site = await resolveSite(ctx, input.site_id);
  const overrides = await loadSignalWeights(ctx.db, site.id);
  const effective = weightResolver(overrides);
  const registry = weightResolver();
  const types = [...KNOWN_SIGNAL_TYPES, ...Object.keys(overrides).filter((t) => !KNOWN_SIGNAL_TYPES.includes(t)).sort()];
  return {
    site_id: site.id,
    fallback_weight: FALLBACK_WEIGHT,
    signals: types.map((type) => ({
      type, tier: tierOf(type), default_weight: registry(type), weight: effective(type), custom: type in overrides,
      journey_edge: isEdgeDecorator(type), heatmap: (HEATMAP_SIGNAL_TYPES as readonly string[]).includes(type),
    })),
  };
}
