// GET /v1/query/flows: page-to-page navigation in the most recent multi-page sessions of the
// window (by default the last `days`), on the device class if given.
import type { Static } from '@sinclair/typebox';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { readWindow } from '../../domain/read-window.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import { flowEdgesOf, recentSessionIds } from './journey-sessions.ts';
import type { FlowsQuery } from './schemas.ts';

/** Flows look at this many of the most recent multi-page sessions in their window. */
export const FLOW_SESSION_CAP = 5000;

export async function flows({ ctx, input }: { ctx: ServiceContext; input: Static<typeof FlowsQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const filters = { window: readWindow(input, ctx.now, input.days * DAY_MS), device: input.device };
  return cachedRead(ctx, ['flows', site.id, input], async () => {
    const sids = await recentSessionIds(ctx.db, site.id, filters, FLOW_SESSION_CAP);
    return { site_id: site.id, days: input.days, sessions_analyzed: sids.length, edges: await flowEdgesOf(ctx.db, site.id, sids, input.limit) };
  });
}
