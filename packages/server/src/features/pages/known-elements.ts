// The elements a page knows: those with friction signals in the last 30 days (the hourly
// element rollup). A heatmap asked for a selector that is not among them answers 404 with the
// closest known selectors of that page, so a typo or a guessed selector can be corrected
// instead of reading as "no friction".
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { cleanSelector } from '../../domain/normalize.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS, HOUR_MS } from '../../domain/time.ts';
import { closestPages } from './known-pages.ts';

const RECENT_MS = 30 * DAY_MS;
const MAX_ELEMENTS = 1000;
const CLOSEST = 5;

/** The candidates nearest to `given`: those sharing its start first, then by edit distance. */
export function closestSelectors(given: string, candidates: readonly string[], n: number): string[] {
  const g = given.toLowerCase();
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(g) || g.startsWith(c.toLowerCase())).sort();
  const rest = closestPages(given, candidates.filter((c) => !prefixed.includes(c)), n);
  return [...prefixed, ...rest].slice(0, n);
}

/** Nothing when the page knows the selector (or knows no element at all); else 404 with the closest. */
export async function knownSelector({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; page: string; selector: string } }): Promise<void> {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx, site.id, input.page);
  const selector = cleanSelector(input.selector);
  const rows = await ctx.db.selectFrom('element_rollup').select('element').distinct()
    .where('site_id', '=', site.id).where('page', '=', page).where('hour', '>=', Math.floor((ctx.now - RECENT_MS) / HOUR_MS) * HOUR_MS)
    .limit(MAX_ELEMENTS).execute();
  const known = rows.map((r) => r.element).filter((e) => e !== '');
  if (known.length === 0 || known.includes(selector)) return;
  const closest = closestSelectors(selector, known, CLOSEST);
  throw new AppError('not_found', `selector: no friction recorded on ${selector} on ${page}; the closest known selectors of that page are ${closest.join(', ')}`, { field: 'selector', selector, page, closest });
}
