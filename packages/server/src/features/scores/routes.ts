// Score routes: the site summary, one page in detail, trends, a side-by-side comparison and
// the elements with the most friction.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { Nullable } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { compare, pageDetail, siteSummary, topElements, trends } from './service.ts';
import { DAY_MS } from '../../domain/time.ts';

const SiteId = { site_id: Type.Optional(Type.String({ maxLength: 64 })) };
const Page = Type.String({ minLength: 1, maxLength: 2048, description: 'A page path, e.g. /checkout' });
const Row = Type.Record(Type.String(), Type.Unknown());
const Element = Type.Object({
  element_selector: Type.String(), label: Nullable(Type.String()), signal_count: Type.Integer(),
  signals: Type.Record(Type.String(), Type.Integer()), dominant_signal: Type.String(), affected_users: Type.Integer(),
  recommendation: Type.String(),
});

export async function scoreRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/scores', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Site score summary; pages sorted by score, highest first',
      querystring: Type.Object(SiteId),
      response: {
        200: Envelope(Type.Object({
          site: Type.Object({
            site_id: Type.String(), overall_score: Type.Number(), overall_trend: Type.String(), pages: Type.Array(Row),
            total_active_users: Type.Integer(), total_affected_users: Type.Integer(),
          }),
          duck_state: Type.String(), duck_label: Type.String(), as_of: Nullable(Type.String()),
        })),
      },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    return ok(await siteSummary(store, site.id));
  });

  app.get('/query/page', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One page: score, 7 days of history, elements, active alerts, open issues, recent deploys, annotations, budgets',
      querystring: Type.Object({ ...SiteId, page: Page }),
      response: {
        200: Envelope(Type.Object({
          page: Type.String(), score: Nullable(Row), history: Type.Array(Row), elements: Type.Array(Element),
          active_alerts: Type.Array(Row), issues: Type.Array(Row), recent_deploys: Type.Array(Row),
          annotations: Type.Array(Row), budgets: Type.Array(Row),
        })),
      },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const page = await pageParam(store.db, site.id, request.query.page);
    return ok(await pageDetail(store, site.id, page, clock.now()));
  });

  app.get('/query/trends', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Score history, newest first: one page, or the site when page is omitted',
      querystring: Type.Object({ ...SiteId, page: Type.Optional(Page), days: Type.Integer({ minimum: 1, maximum: 90, default: 7 }) }),
      response: { 200: Envelope(Type.Object({ page: Nullable(Type.String()), days: Type.Integer(), history: Type.Array(Row), annotations: Type.Array(Row) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const page = request.query.page === undefined ? null : await pageParam(store.db, site.id, request.query.page);
    return ok(await trends(store, site.id, page, request.query.days, clock.now()));
  });

  app.get('/query/compare', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Two pages side by side, and their differences (a - b)',
      querystring: Type.Object({ ...SiteId, a: Page, b: Page }),
      response: { 200: Envelope(Type.Object({ a: Row, b: Row, difference: Row })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const a = await pageParam(store.db, site.id, request.query.a, 'a');
    const b = await pageParam(store.db, site.id, request.query.b, 'b');
    return ok(await compare(store, site.id, a, b));
  });

  app.get('/query/elements', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Elements of a page with the most friction signals in the last 7 days',
      querystring: Type.Object({ ...SiteId, page: Page, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: { 200: Envelope(Type.Object({ page: Type.String(), elements: Type.Array(Element) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const page = await pageParam(store.db, site.id, request.query.page);
    return ok({ page, elements: await topElements(store, site.id, page, clock.now() - 7 * DAY_MS, request.query.limit) });
  });
}
