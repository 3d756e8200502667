// Element and page heatmaps: click-based friction points of the last 30 days, most recent
// first, as fractions (never pixels). Only rage, dead and disabled clicks make points.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { HEATMAP_SIGNAL_TYPES } from '../../domain/signals.ts';
import { DAY_MS } from '../../domain/time.ts';
import { cleanSelector, SELECTOR_MAX } from '../../domain/normalize.ts';

export const ELEMENT_HEATMAP_MAX = 300;
export const PAGE_HEATMAP_MAX = 500;
export const HEATMAP_WINDOW_MS = 30 * DAY_MS;

const PageQuery = {
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  page: Type.String({ minLength: 1, maxLength: 2048 }),
};

const ElementPoint = Type.Object({ rx: Type.Number(), ry: Type.Number(), signal: Type.String() });
const PagePoint = Type.Object({ vx: Type.Number(), vy: Type.Number(), signal: Type.String(), el: Type.Optional(Type.String()) });

export async function heatmapRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/element-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where inside one element users struggled (up to 300 points)',
      querystring: Type.Object({ ...PageQuery, selector: Type.String({ minLength: 1, maxLength: SELECTOR_MAX }) }),
      response: { 200: Envelope(Type.Object({ page: Type.String(), selector: Type.String(), count: Type.Integer(), points: Type.Array(ElementPoint) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const page = await pageParam(store.db, site.id, request.query.page);
    // Cleaned as ingest cleans stored selectors, so a selector that held personal data still matches.
    const selector = cleanSelector(request.query.selector);
    const rows = await store.db.selectFrom('signals').select(['rx', 'ry', 'signal_type'])
      .where('site_id', '=', site.id).where('page', '=', page).where('element', '=', selector)
      .where('signal_type', 'in', HEATMAP_SIGNAL_TYPES).where('rx', 'is not', null)
      .where('occurred_at', '>=', clock.now() - HEATMAP_WINDOW_MS)
      .orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(ELEMENT_HEATMAP_MAX).execute();
    const points = rows.map((r) => ({ rx: r.rx!, ry: r.ry!, signal: r.signal_type }));
    return ok({ page, selector, count: points.length, points });
  });

  app.get('/query/page-heatmap', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Where in the viewport users struggled on a page (up to 500 points)',
      querystring: Type.Object(PageQuery),
      response: { 200: Envelope(Type.Object({ page: Type.String(), count: Type.Integer(), points: Type.Array(PagePoint) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const page = await pageParam(store.db, site.id, request.query.page);
    const rows = await store.db.selectFrom('signals').select(['vx', 'vy', 'signal_type', 'element'])
      .where('site_id', '=', site.id).where('page', '=', page)
      .where('signal_type', 'in', HEATMAP_SIGNAL_TYPES).where('vx', 'is not', null)
      .where('occurred_at', '>=', clock.now() - HEATMAP_WINDOW_MS)
      .orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(PAGE_HEATMAP_MAX).execute();
    const points = rows.map((r) => (r.element ? { vx: r.vx!, vy: r.vy!, signal: r.signal_type, el: r.element } : { vx: r.vx!, vy: r.vy!, signal: r.signal_type }));
    return ok({ page, count: points.length, points });
  });
}
