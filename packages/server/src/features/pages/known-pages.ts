// The pages a site knows: scored ones, and any seen in the last week's events. A reader asked
// for a page that is not among them answers 404 with the closest known pages, so whoever asked
// (an assistant, most often) can correct a typo instead of reading an empty answer.
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import type { Database } from '../../store/tables.ts';

const RECENT_MS = 7 * DAY_MS;
const MAX_PAGES = 1000;
const CLOSEST = 3;

async function pagesOf(db: Kysely<Database>, siteId: string, now: number): Promise<string[]> {
  const [scored, seen] = await Promise.all([
    db.selectFrom('page_scores').select('page').where('site_id', '=', siteId).limit(MAX_PAGES).execute(),
    db.selectFrom('events').select('page').distinct().where('site_id', '=', siteId).where('occurred_at', '>=', now - RECENT_MS).limit(MAX_PAGES).execute(),
  ]);
  return [...new Set([...scored, ...seen].map((r) => r.page))].sort();
}

/** The site's known pages, alphabetically (at most 1000 of each kind). */
export async function knownPages({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }): Promise<string[]> {
  const site = await resolveSite(ctx, input.site_id);
  return pagesOf(ctx.db, site.id, ctx.now);
}

/** The page as stored (normalized), or 404 naming the closest known pages. */
export async function knownPage({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; page: string; field?: string } }): Promise<string> {
  const site = await resolveSite(ctx, input.site_id);
  const field = input.field ?? 'page';
  const page = await pageParam(ctx, site.id, input.page, field);
  const scored = await ctx.db.selectFrom('page_scores').select('page').where('site_id', '=', site.id).where('page', '=', page).executeTakeFirst();
  const seen = scored ?? await ctx.db.selectFrom('events').select('page').where('site_id', '=', site.id).where('page', '=', page).limit(1).executeTakeFirst();
  if (seen) return page;
  const closest = closestPages(page, await pagesOf(ctx.db, site.id, ctx.now), CLOSEST);
  const hint = closest.length ? `; the closest known pages are ${closest.join(', ')}` : '; the site has no page with data yet';
  throw new AppError('not_found', `${field}: no data for the page ${page} on this site${hint}`, { field, page, closest });
}

/** The candidates nearest to `page` by edit distance (ties alphabetically). */
export function closestPages(page: string, candidates: readonly string[], n: number): string[] {
  return candidates
    .map((c) => ({ c, d: editDistance(page.toLowerCase(), c.toLowerCase()) }))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, n)
    .map((x) => x.c);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
