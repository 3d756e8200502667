// Sites of an org: list, create, change, delete. Deleting hides the site and revokes its keys
// at once (one transaction); its data is purged afterwards in batches by purgeDeletedSites.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { effectiveRetentionDays } from '../../domain/retention.ts';
import { DEFAULT_CLIP_DAILY_BYTES, DEFAULT_CLIP_RETENTION_DAYS } from '../../domain/clips.ts';
import { cleanHttpUrl, cleanName } from '../../domain/clean-input.ts';
import { siteInScope } from '../../domain/tenancy.ts';
import { purgeDeletedSites } from '../../jobs/purge-sites.ts';
import type { Database, Site } from '../../store/tables.ts';
import type { CreateSiteBody, SiteRecord, UpdateSiteBody } from './schemas.ts';
import { forgetCredentials } from '../../domain/authenticate.ts';

/** `maxRetentionDays`: the instance's MALLARD_RETENTION_DAYS, the bound of a site's own. */
export function toSiteRecord(site: Site, maxRetentionDays: number): SiteRecord {
  return {
    id: site.id,
    org_id: site.org_id,
    name: site.name,
    url: site.url,
    allowed_origins: JSON.parse(site.allowed_origins) as string[],
    retention_days: site.retention_days,
    effective_retention_days: effectiveRetentionDays(site.retention_days, maxRetentionDays),
    max_retention_days: maxRetentionDays,
    clip_retention_days: site.clip_retention_days,
    clip_daily_bytes: Number(site.clip_daily_bytes),
    created_at: iso(site.created_at),
    updated_at: iso(site.updated_at),
  };
}

function cleanOrigins(values: string[]): string[] {
  return [...new Set(values.map((value) => {
    const url = cleanHttpUrl(value, 'allowed_origins');
    return new URL(url).origin;
  }))];
}

/** The org's live sites; a site-scoped key sees only its own. */
export async function listSites({ ctx, maxRetentionDays }: { ctx: ServiceContext; maxRetentionDays: number }): Promise<{ sites: SiteRecord[] }> {
  const { db, auth } = ctx;
  let query = db.selectFrom('sites').selectAll().where('org_id', '=', auth.org.id).where('deleted_at', 'is', null);
  if (auth.site) query = query.where('id', '=', auth.site.id);
  const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  return { sites: rows.map((row) => toSiteRecord(row, maxRetentionDays)) };
}

/** The sites the caller can see, by name: a site-scoped credential sees its own (what `site_id` may be). */
export async function siteDirectory({ ctx }: { ctx: ServiceContext }): Promise<{ id: string; name: string; url: string }[]> {
  let query = ctx.db.selectFrom('sites').select(['id', 'name', 'url']).where('org_id', '=', ctx.auth.org.id).where('deleted_at', 'is', null);
  if (ctx.auth.site) query = query.where('id', '=', ctx.auth.site.id);
  return query.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

/** Inserts a site row inside the caller's transaction (also used by bootstrap). */
export async function insertSite(trx: Kysely<Database>, orgId: string, input: CreateSiteBody, now: number): Promise<Site> {
  const site: Site = {
    id: uuidv7(),
    org_id: orgId,
    name: cleanName(input.name),
    url: cleanHttpUrl(input.url),
    allowed_origins: JSON.stringify(cleanOrigins(input.allowed_origins ?? [])),
    created_at: now,
    updated_at: now,
    deleted_at: null,
    retention_days: null,
    clip_retention_days: DEFAULT_CLIP_RETENTION_DAYS,
    clip_daily_bytes: DEFAULT_CLIP_DAILY_BYTES,
  };
  await trx.insertInto('sites').values(site).execute();
  return site;
}

export async function createSite({ ctx, input, maxRetentionDays }: { ctx: ServiceContext; input: CreateSiteBody; maxRetentionDays: number }): Promise<SiteRecord> {
  const { auth, now } = ctx;
  return ctx.db.transaction().execute(async (trx) => {
    const site = await insertSite(trx, auth.org.id, input, now);
    await recordAudit(trx, ctx, { action: 'site.created', targetType: 'site', targetId: site.id, siteId: site.id, details: { name: site.name } });
    return toSiteRecord(site, maxRetentionDays);
  });
}

export async function updateSite({ ctx, input: { id, ...input }, maxRetentionDays }: { ctx: ServiceContext; input: UpdateSiteBody & { id: string }; maxRetentionDays: number }): Promise<SiteRecord> {
  const { auth, now } = ctx;
  await siteInScope(ctx, id);
  const changes: Partial<Site> = { updated_at: now };
  if (input.name !== undefined) changes.name = cleanName(input.name);
  if (input.url !== undefined) changes.url = cleanHttpUrl(input.url);
  if (input.allowed_origins !== undefined) changes.allowed_origins = JSON.stringify(cleanOrigins(input.allowed_origins));
  if (input.retention_days !== undefined) {
    // A site may keep its data for less time than the instance, never more.
    if (input.retention_days !== null && input.retention_days > maxRetentionDays) {
      throw invalidInput('retention_days', `must be at most ${maxRetentionDays}, this instance's MALLARD_RETENTION_DAYS (or null for that)`);
    }
    changes.retention_days = input.retention_days;
  }
  if (input.clip_retention_days !== undefined) changes.clip_retention_days = input.clip_retention_days;
  if (input.clip_daily_bytes !== undefined) changes.clip_daily_bytes = input.clip_daily_bytes;
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const site = await trx.updateTable('sites').set(changes).where('id', '=', id)
      .where('deleted_at', 'is', null).returningAll().executeTakeFirst();
    if (!site) throw new AppError('not_found', 'Site not found');
    await recordAudit(trx, ctx, { action: 'site.updated', targetType: 'site', targetId: site.id, siteId: site.id, details: { fields: Object.keys(input) } });
    return toSiteRecord(site, maxRetentionDays);
  });
  forgetCredentials(ctx.db); // keys carry their site's name and URL
  return updated;
}

export async function deleteSite({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<{ id: string; deleted: true }> {
  const { auth, now } = ctx;
  const siteId = input.id;
  await siteInScope(ctx, siteId);
  await ctx.db.transaction().execute(async (trx) => {
    const done = await trx.updateTable('sites').set({ deleted_at: now, updated_at: now })
      .where('id', '=', siteId).where('deleted_at', 'is', null).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw new AppError('not_found', 'Site not found');
    await trx.updateTable('api_keys').set({ revoked_at: now }).where('site_id', '=', siteId).where('revoked_at', 'is', null).execute();
    await trx.updateTable('oauth_grants').set({ revoked_at: now }).where('site_id', '=', siteId).where('revoked_at', 'is', null).execute();
    await recordAudit(trx, ctx, { action: 'site.deleted', targetType: 'site', targetId: siteId, siteId });
  });
  forgetCredentials(ctx.db);
  // The site is already unreachable; its rows go in the background.
  purgeDeletedSites(ctx).catch((err) => ctx.log.error({ err }, 'purging deleted site failed'));
  return { id: siteId, deleted: true };
}
