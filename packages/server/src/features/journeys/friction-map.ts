// GET /v1/query/journeys/friction: the page transitions where users struggled, from the
// `limit` most recent multi-page sessions (in the window and on the device class, if given).
import type { Static } from '@sinclair/typebox';
import { iso } from '../../clock.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { readWindow } from '../../domain/read-window.ts';
import { weightResolver } from '../../domain/signals.ts';
import { loadSignalWeights } from '../../domain/site-config.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { frictionEdges } from './friction.ts';
import { loadSessions, recentSessionIds } from './journey-sessions.ts';
import type { FrictionQuery } from './schemas.ts';

export async function frictionMap({ ctx, input }: { ctx: ServiceContext; input: Static<typeof FrictionQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  // No window by default: the most recent sessions, however old.
  const filters = { window: readWindow(input, ctx.now, null), device: input.device };
  return cachedRead(ctx, ['friction', site.id, input], async () => {
    const sessions = await loadSessions(ctx.db, site.id, await recentSessionIds(ctx.db, site.id, filters, input.limit), true);
    const weight = weightResolver(await loadSignalWeights(ctx.db, site.id));
    const edges = frictionEdges(sessions, { weight, signalType: input.signal_type, minFrictionWeight: input.min_friction_weight });
    return {
      site_id: site.id,
      sessions_analyzed: sessions.length,
      edges: edges.map((e) => ({ ...e, examples: e.examples.map((x) => ({ ...x, occurred_at: iso(x.occurred_at) })) })),
    };
  });
}
