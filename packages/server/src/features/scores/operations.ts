// The score operations: the site summary, one page in detail, trends, two pages compared and
// the elements with the most friction.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { CompareQuery, Comparison, Elements, ElementsQuery, PageDetail, PageQuery, SiteScores, SiteScoresQuery, Trends, TrendsQuery } from './schemas.ts';
import { comparePages, getElements, getPageDetail, getSiteScores, getTrends } from './service.ts';

export const siteScoresOp = defineOperation({
  name: 'scores.site',
  summary: 'Site score summary; pages sorted by score, highest first',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/scores', surface: 'query', tags: ['query'] },
  input: { query: SiteScoresQuery },
  output: SiteScores,
  run: (ctx, input) => getSiteScores({ ctx, input }),
});

export const pageDetailOp = defineOperation({
  name: 'scores.page',
  summary: 'One page: score, 7 days of history, elements, active alerts, open issues, recent deploys, annotations, budgets',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/page', surface: 'query', tags: ['query'] },
  input: { query: PageQuery },
  output: PageDetail,
  run: (ctx, input) => getPageDetail({ ctx, input }),
});

export const trendsOp = defineOperation({
  name: 'scores.trends',
  summary: 'Score history, newest first: one page, or the site when page is omitted',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/trends', surface: 'query', tags: ['query'] },
  input: { query: TrendsQuery },
  output: Trends,
  run: (ctx, input) => getTrends({ ctx, input }),
});

export const compareOp = defineOperation({
  name: 'scores.compare',
  summary: 'Two pages side by side, and their differences (a - b)',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/compare', surface: 'query', tags: ['query'] },
  input: { query: CompareQuery },
  output: Comparison,
  run: (ctx, input) => comparePages({ ctx, input }),
});

export const elementsOp = defineOperation({
  name: 'scores.elements',
  summary: 'Elements of a page with the most friction signals: the last 7 days, or a window, optionally for one device type',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/elements', surface: 'query', tags: ['query'] },
  input: { query: ElementsQuery },
  output: Elements,
  run: (ctx, input) => getElements({ ctx, input }),
});

export const SCORE_OPERATIONS = [siteScoresOp, pageDetailOp, trendsOp, compareOp, elementsOp];
