// The score services behind /query/scores, /page, /trends, /compare and /elements: each
// resolves the site within the caller's tenancy and normalises page parameters first, then
// reads through the query module named by what it returns.
import type { ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import { pageComparison } from './page-comparison.ts';
import { pageDetail } from './page-detail.ts';
import { MAX_DAYS, type CompareQuery, type ElementsQuery, type PageQuery, type SiteScoresQuery, type TrendsQuery } from './schemas.ts';
import { scoreTrends } from './score-trends.ts';
import { siteSummary } from './site-summary.ts';
import { topElements, type ElementFilter } from './top-elements.ts';

export async function getSiteScores({ ctx, input }: { ctx: ServiceContext; input: SiteScoresQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  return siteSummary(ctx.db, site.id);
}

export async function getPageDetail({ ctx, input }: { ctx: ServiceContext; input: PageQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx.db, site.id, input.page);
  return pageDetail(ctx.db, site.id, page, ctx.now);
}

export async function getTrends({ ctx, input }: { ctx: ServiceContext; input: TrendsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = input.page === undefined ? null : await pageParam(ctx.db, site.id, input.page);
  return scoreTrends(ctx.db, site.id, page, input.days, ctx.now);
}

export async function comparePages({ ctx, input }: { ctx: ServiceContext; input: CompareQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const a = await pageParam(ctx.db, site.id, input.a, 'a');
  const b = await pageParam(ctx.db, site.id, input.b, 'b');
  return pageComparison(ctx.db, site.id, a, b);
}

export async function getElements({ ctx, input }: { ctx: ServiceContext; input: ElementsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx.db, site.id, input.page);
  const filter: ElementFilter = { ...elementsWindow(input, ctx.now), device: input.device ?? null };
  return { page, elements: await topElements(ctx.db, site.id, page, filter, input.limit) };
}

function instant(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidInput(field, 'must be an ISO 8601 instant');
  return ms;
}

/**
 * The window of /query/elements: 7 days up to `to` (or now) unless `from` is given; like
 * trends' `days`, it reaches at most MAX_DAYS back.
 */
function elementsWindow(input: { from?: string; to?: string }, now: number): Pick<ElementFilter, 'since' | 'until'> {
  const horizon = now - MAX_DAYS * DAY_MS;
  const until = input.to === undefined ? null : instant(input.to, 'to');
  const since = input.from === undefined ? Math.max((until ?? now) - 7 * DAY_MS, horizon) : instant(input.from, 'from');
  if (since < horizon) throw invalidInput('from', `must not be more than ${MAX_DAYS} days ago`);
  if (until !== null && until <= since) throw invalidInput('to', 'must be after from');
  return { since, until };
}
