// Tenancy, in one place. Which site a request is about: site-scoped keys default to their own
// site; org-level credentials must name one. Another org's site is 404 (existence never leaks);
// a sibling site of the key's own org is 403. A row named by id (a webhook, an alert, a rule)
// is found only within the caller's org and, for a site-scoped key, its site; else 404.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { ServiceContext } from './context.ts';
import { AppError } from './errors.ts';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a tenancy check needs of a service context. */
export type TenantContext = Pick<ServiceContext, 'db' | 'auth' | 'memo'>;

export interface SiteRef { id: string; org_id: string; name: string; url: string }

export function assertUuid(value: string, field: string): string {
  if (!UUID_PATTERN.test(value)) throw new AppError('invalid_uuid', `${field} must be a UUID`, { field });
  return value.toLowerCase();
}

/** A site of the caller's org that the credential may use, or the matching error (read once per call: ctx.memo). */
export function siteInScope(ctx: TenantContext, siteId: string): Promise<SiteRef> {
  const id = assertUuid(siteId, 'site_id');
  const memo = ctx.memo?.sites;
  let site = memo?.get(id) as Promise<SiteRef> | undefined;
  if (!site) {
    site = readSiteInScope(ctx, id);
    memo?.set(id, site);
  }
  return site;
}

async function readSiteInScope({ db, auth }: TenantContext, id: string): Promise<SiteRef> {
  const site = await db.selectFrom('sites').select(['id', 'org_id', 'name', 'url'])
    .where('id', '=', id).where('org_id', '=', auth.org.id).where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!site) throw new AppError('not_found', 'Site not found');
  if (auth.site && auth.site.id !== site.id) {
    throw new AppError('forbidden', 'This key is scoped to another site');
  }
  return site;
}

/** The site named by `site_id`, or the key's own site when it is omitted. */
export async function resolveSite(ctx: TenantContext, siteId: string | undefined): Promise<SiteRef> {
  const { auth } = ctx;
  if (siteId !== undefined && siteId !== '') return siteInScope(ctx, siteId);
  if (!auth.site) throw new AppError('missing_site_id', 'site_id is required for org-level credentials');
  return { ...auth.site, org_id: auth.org.id };
}

/** Tables whose rows belong to one site and are named by their own `id`. */
export type SiteOwnedTable = 'webhooks' | 'integrations' | 'alerts' | 'alert_rules' | 'ux_issues' | 'deploys' | 'annotations' | 'funnels';

/**
 * The row with this id if the credential may see it: its site is live, in the caller's org,
 * and the key's own site for a site-scoped key. Anything else is the same 404, so another
 * tenant's ids never confirm that they exist.
 */
export async function rowInTenant<T extends SiteOwnedTable>(
  { db, auth }: TenantContext, table: T, id: string, what: string,
): Promise<Selectable<Database[T]>> {
  // Kysely cannot type a join over a table chosen at run time; the result is typed by `table`.
  const loose = db as unknown as Kysely<any>;
  let query = loose.selectFrom(`${table as string} as row`).innerJoin('sites', 'sites.id', 'row.site_id').selectAll('row')
    .where('row.id', '=', id.toLowerCase()).where('sites.org_id', '=', auth.org.id).where('sites.deleted_at', 'is', null);
  if (auth.site) query = query.where('row.site_id', '=', auth.site.id);
  const row = await query.executeTakeFirst();
  if (!row) throw new AppError('not_found', `${what} not found`);
  return row as Selectable<Database[T]>;
}
