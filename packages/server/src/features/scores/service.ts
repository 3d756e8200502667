// The score services behind /query/scores, /page, /trends, /compare and /elements: each
// resolves the site within the caller's tenancy and normalises page parameters first, then
// reads through the query module named by what it returns.
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { readWindow } from '../../domain/read-window.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import { pageComparison } from './page-comparison.ts';
import { pageDetail } from './page-detail.ts';
import { type CompareQuery, type ElementsQuery, type PageQuery, type SiteScoresQuery, type TrendsQuery } from './schemas.ts';
import { scoreTrends } from './score-trends.ts';
import { siteSummary } from './site-summary.ts';
import { topElements, withWindow, type ElementFilter } from './top-elements.ts';

export async function getSiteScores({ ctx, input }: { ctx: ServiceContext; input: SiteScoresQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['scores', site.id, input], () => siteSummary(ctx.db, site.id));
}

export async function getPageDetail({ ctx, input }: { ctx: ServiceContext; input: PageQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx, site.id, input.page);
  return cachedRead(ctx, ['page', site.id, page, input], () => pageDetail(ctx.db, site.id, page, ctx.now));
}

export async function getTrends({ ctx, input }: { ctx: ServiceContext; input: TrendsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = input.page === undefined ? null : await pageParam(ctx, site.id, input.page);
  return cachedRead(ctx, ['trends', site.id, page, input], () => scoreTrends(ctx.db, site.id, page, input.days, ctx.now));
}

export async function comparePages({ ctx, input }: { ctx: ServiceContext; input: CompareQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const a = await pageParam(ctx, site.id, input.a, 'a');
  const b = await pageParam(ctx, site.id, input.b, 'b');
  return cachedRead(ctx, ['compare', site.id, a, b, input], () => pageComparison(ctx.db, site.id, a, b));
}

/** The elements' window when no `from` is given: the 7 days before `to` (or now). */
const ELEMENTS_SPAN_MS = 7 * DAY_MS;

export async function getElements({ ctx, input }: { ctx: ServiceContext; input: ElementsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx, site.id, input.page);
  const window = readWindow(input, ctx.now, ELEMENTS_SPAN_MS);
  const filter: ElementFilter = { since: window.from!, until: window.to, device: input.device ?? null };
  return cachedRead(ctx, ['elements', site.id, page, input], async () => ({
    page, elements: withWindow(await topElements(ctx.db, site.id, page, filter, input.limit), filter.since, window.to ?? ctx.now),
  }));
}

