// Which site a request is about. Site-scoped keys default to their own site; org-level
// credentials must name one. Another org's site is 404 (existence never leaks); a sibling
// site of the key's own org is 403.
import type { Store } from '../store/db.ts';
import type { AuthContext } from './access.ts';
import { AppError } from './errors.ts';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SiteRef { id: string; org_id: string; name: string; url: string }

export function assertUuid(value: string, field: string): string {
  if (!UUID_PATTERN.test(value)) throw new AppError('invalid_uuid', `${field} must be a UUID`, { field });
  return value.toLowerCase();
}

/** A site of the caller's org that the credential may use, or the matching error. */
export async function siteInScope(store: Store, auth: AuthContext, siteId: string): Promise<SiteRef> {
  const id = assertUuid(siteId, 'site_id');
  const site = await store.db.selectFrom('sites').select(['id', 'org_id', 'name', 'url'])
    .where('id', '=', id).where('org_id', '=', auth.org.id).where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!site) throw new AppError('not_found', 'Site not found');
  if (auth.site && auth.site.id !== site.id) {
    throw new AppError('forbidden', 'This key is scoped to another site');
  }
  return site;
}

/** The site named by `site_id`, or the key's own site when it is omitted. */
export async function resolveSite(store: Store, auth: AuthContext, siteId: string | undefined): Promise<SiteRef> {
  if (siteId !== undefined && siteId !== '') return siteInScope(store, auth, siteId);
  if (!auth.site) throw new AppError('missing_site_id', 'site_id is required for org-level credentials');
  return { ...auth.site, org_id: auth.org.id };
}
