// GET /v1/query/journeys/friction and /v1/query/flows: how users move between pages, and
// where that movement hurts.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { App } from '../../http/app-types.ts';
import { iso } from '../../clock.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import { weightResolver } from '../../domain/signals.ts';
import { loadSignalWeights } from '../../domain/site-config.ts';
import type { Database } from '../../store/tables.ts';
import { flowEdges, frictionEdges, type JourneySession } from './friction.ts';

/** Flows look at this many of the most recent multi-page sessions in their window. */
export const FLOW_SESSION_CAP = 5000;

const Example = Type.Object({ session_id: Type.String(), page: Type.String(), signal_type: Type.String(), element_selector: Type.String(), occurred_at: Type.String() });
const FrictionEdge = Type.Object({
  from: Type.String(), to: Type.String(), sessions: Type.Integer(), friction_weight: Type.Number(),
  signals: Type.Record(Type.String(), Type.Integer()), examples: Type.Array(Example),
});
const FlowEdge = Type.Object({ from: Type.String(), to: Type.String(), transitions: Type.Integer(), sessions: Type.Integer() });

async function loadSessions(db: Kysely<Database>, siteId: string, sids: string[], withSignals: boolean): Promise<JourneySession[]> {
  if (sids.length === 0) return [];
  const byId = new Map<string, JourneySession>(sids.map((sid) => [sid, { sid, pageviews: [], signals: [] }]));
  const views = await db.selectFrom('events').select(['sid', 'page', 'occurred_at'])
    .where('site_id', '=', siteId).where('sid', 'in', sids).where('type', '=', 'pageview')
    .orderBy('occurred_at', 'asc').orderBy('id', 'asc').execute();
  for (const v of views) byId.get(v.sid)!.pageviews.push({ page: v.page, at: v.occurred_at });
  if (withSignals) {
    const signals = await db.selectFrom('signals').select(['id', 'sid', 'signal_type', 'page', 'element', 'occurred_at', 'confidence'])
      .where('site_id', '=', siteId).where('sid', 'in', sids).execute();
    for (const s of signals) byId.get(s.sid)!.signals.push({ id: s.id, type: s.signal_type, page: s.page, element: s.element, at: s.occurred_at, confidence: s.confidence });
  }
  return [...byId.values()];
}

export async function journeyRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/journeys/friction', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Friction journey map: page transitions where users struggled',
      querystring: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        limit: Type.Integer({ minimum: 1, maximum: 1000, default: 250, description: 'Most recent sessions analyzed' }),
        min_friction_weight: Type.Number({ minimum: 0, maximum: 1000, default: 1 }),
        signal_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' })),
      }),
      response: { 200: Envelope(Type.Object({ site_id: Type.String(), sessions_analyzed: Type.Integer(), edges: Type.Array(FrictionEdge) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const recent = await store.db.selectFrom('sessions').select('sid')
      .where('site_id', '=', site.id).where('page_count', '>=', 2)
      .orderBy('last_seen_at', 'desc').orderBy('sid', 'asc').limit(request.query.limit).execute();
    const sessions = await loadSessions(store.db, site.id, recent.map((r) => r.sid), true);
    const weight = weightResolver(await loadSignalWeights(store.db, site.id));
    const edges = frictionEdges(sessions, { weight, signalType: request.query.signal_type, minFrictionWeight: request.query.min_friction_weight });
    return ok({
      site_id: site.id,
      sessions_analyzed: sessions.length,
      edges: edges.map((e) => ({ ...e, examples: e.examples.map((x) => ({ ...x, occurred_at: iso(x.occurred_at) })) })),
    });
  });

  app.get('/query/flows', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Page-to-page navigation edges with transition and session counts',
      querystring: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        days: Type.Integer({ minimum: 1, maximum: 90, default: 7 }),
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Most edges returned' }),
      }),
      response: { 200: Envelope(Type.Object({ site_id: Type.String(), days: Type.Integer(), sessions_analyzed: Type.Integer(), edges: Type.Array(FlowEdge) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const since = clock.now() - request.query.days * DAY_MS;
    const recent = await store.db.selectFrom('sessions').select('sid')
      .where('site_id', '=', site.id).where('page_count', '>=', 2).where('last_seen_at', '>=', since)
      .orderBy('last_seen_at', 'desc').orderBy('sid', 'asc').limit(FLOW_SESSION_CAP).execute();
    const sessions = await loadSessions(store.db, site.id, recent.map((r) => r.sid), false);
    return ok({ site_id: site.id, days: request.query.days, sessions_analyzed: sessions.length, edges: flowEdges(sessions, request.query.limit) });
  });
}
