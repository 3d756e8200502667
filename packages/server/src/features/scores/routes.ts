// Score routes: the site summary, one page in detail, trends, a side-by-side comparison and
// the elements with the most friction.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { Nullable } from '../../domain/schema-parts.ts';
import { CompareQuery, ElementsQuery, PageQuery, SiteScoresQuery, TrendsQuery } from './schemas.ts';
import { comparePages, getElements, getPageDetail, getSiteScores, getTrends } from './service.ts';

const Row = Type.Record(Type.String(), Type.Unknown());
const Element = Type.Object({
  element_selector: Type.String(), label: Nullable(Type.String()), signal_count: Type.Integer(),
  signals: Type.Record(Type.String(), Type.Integer()), dominant_signal: Type.String(), affected_users: Type.Integer(),
  recommendation: Type.String(),
});

export async function scoreRoutes(app: App) {
  app.get('/query/scores', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Site score summary; pages sorted by score, highest first',
      querystring: SiteScoresQuery,
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
  }, async (request) => ok(await getSiteScores({ ctx: contextOf(request), input: request.query })));

  app.get('/query/page', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One page: score, 7 days of history, elements, active alerts, open issues, recent deploys, annotations, budgets',
      querystring: PageQuery,
      response: {
        200: Envelope(Type.Object({
          page: Type.String(), score: Nullable(Row), history: Type.Array(Row), elements: Type.Array(Element),
          active_alerts: Type.Array(Row), issues: Type.Array(Row), recent_deploys: Type.Array(Row),
          annotations: Type.Array(Row), budgets: Type.Array(Row),
        })),
      },
    },
  }, async (request) => ok(await getPageDetail({ ctx: contextOf(request), input: request.query })));

  app.get('/query/trends', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Score history, newest first: one page, or the site when page is omitted',
      querystring: TrendsQuery,
      response: { 200: Envelope(Type.Object({ page: Nullable(Type.String()), days: Type.Integer(), history: Type.Array(Row), annotations: Type.Array(Row) })) },
    },
  }, async (request) => ok(await getTrends({ ctx: contextOf(request), input: request.query })));

  app.get('/query/compare', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Two pages side by side, and their differences (a - b)',
      querystring: CompareQuery,
      response: { 200: Envelope(Type.Object({ a: Row, b: Row, difference: Row })) },
    },
  }, async (request) => ok(await comparePages({ ctx: contextOf(request), input: request.query })));

  app.get('/query/elements', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Elements of a page with the most friction signals: the last 7 days, or a window, optionally for one device type',
      querystring: ElementsQuery,
      response: { 200: Envelope(Type.Object({ page: Type.String(), elements: Type.Array(Element) })) },
    },
  }, async (request) => ok(await getElements({ ctx: contextOf(request), input: request.query })));
}
