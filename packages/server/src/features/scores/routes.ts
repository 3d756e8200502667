// Score routes: the site summary, one page in detail, trends, a side-by-side comparison and
// the elements with the most friction.
import type { App } from '../../http/app-types.ts';
import { Envelope, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { CompareQuery, Comparison, Elements, ElementsQuery, PageDetail, PageQuery, SiteScores, SiteScoresQuery, Trends, TrendsQuery } from './schemas.ts';
import { comparePages, getElements, getPageDetail, getSiteScores, getTrends } from './service.ts';

export async function scoreRoutes(app: App) {
  app.get('/query/scores', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Site score summary; pages sorted by score, highest first',
      querystring: SiteScoresQuery,
      response: { 200: Envelope(SiteScores) },
    },
  }, async (request, reply) => okOnce(reply, await getSiteScores({ ctx: contextOf(request), input: request.query })));

  app.get('/query/page', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One page: score, 7 days of history, elements, active alerts, open issues, recent deploys, annotations, budgets',
      querystring: PageQuery,
      response: { 200: Envelope(PageDetail) },
    },
  }, async (request, reply) => okOnce(reply, await getPageDetail({ ctx: contextOf(request), input: request.query })));

  app.get('/query/trends', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Score history, newest first: one page, or the site when page is omitted',
      querystring: TrendsQuery,
      response: { 200: Envelope(Trends) },
    },
  }, async (request, reply) => okOnce(reply, await getTrends({ ctx: contextOf(request), input: request.query })));

  app.get('/query/compare', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Two pages side by side, and their differences (a - b)',
      querystring: CompareQuery,
      response: { 200: Envelope(Comparison) },
    },
  }, async (request, reply) => okOnce(reply, await comparePages({ ctx: contextOf(request), input: request.query })));

  app.get('/query/elements', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Elements of a page with the most friction signals: the last 7 days, or a window, optionally for one device type',
      querystring: ElementsQuery,
      response: { 200: Envelope(Elements) },
    },
  }, async (request, reply) => okOnce(reply, await getElements({ ctx: contextOf(request), input: request.query })));
}
