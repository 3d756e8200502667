// SDK config per site and environment. The production config is the site's base; another
// environment's config overrides it key by key. Only the browser-safe part is public.
import { v7 as uuidv7 } from 'uuid';
import { isoOrNull } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { ENVIRONMENT_PATTERN, type SdkConfig, type SdkConfigPatch } from '../../domain/sdk-config.ts';
import { effectiveConfig } from '../../domain/site-config.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { publicClipsConfig } from '../clips/usage.ts';

function checkEnvironment(environment: string): string {
  if (!ENVIRONMENT_PATTERN.test(environment)) throw invalidInput('environment', 'must be 1 to 64 letters, digits, dots, dashes or underscores');
  return environment;
}

/** Characters no CSS selector holds outside a string: a stylesheet's braces and separators, markup, control characters. */
const NOT_A_SELECTOR = /[{};<>\u0000-\u001f\u007f]/;

function validate(patch: SdkConfigPatch) {
  patch.page_groups?.forEach((group, i) => {
    try { new RegExp(group.match); } catch { throw invalidInput(`page_groups.${i}.match`, 'is not a valid regular expression'); }
  });
  patch.clips?.unmask?.forEach((selector, i) => {
    if (NOT_A_SELECTOR.test(selector) || selector.trim() === '') throw invalidInput(`clips.unmask.${i}`, 'is not a CSS selector');
  });
}

export async function listConfigs({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const { id: siteId } = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('sdk_configs').selectAll().where('site_id', '=', siteId).orderBy('environment').execute();
  return { site_id: siteId, environments: rows.map((r) => ({ site_id: siteId, environment: r.environment, config: JSON.parse(r.config), updated_at: isoOrNull(r.updated_at) })) };
}

type PatchConfigInput = SdkConfigPatch & { environment: string; site_id?: string };

/** Changes one environment's settings; a key set to null is removed. */
export async function patchConfig({ ctx, input: { environment, site_id, ...patch } }: { ctx: ServiceContext; input: PatchConfigInput }) {
  const { auth, now } = ctx;
  const { id: siteId } = await resolveSite(ctx, site_id);
  checkEnvironment(environment);
  validate(patch);
  return ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('sdk_configs').selectAll().where('site_id', '=', siteId).where('environment', '=', environment).executeTakeFirst();
    const config: Record<string, unknown> = row ? JSON.parse(row.config) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete config[key];
      else config[key] = value;
    }
    const text = JSON.stringify(config);
    await trx.insertInto('sdk_configs').values({ id: uuidv7(), site_id: siteId, environment, config: text, updated_at: now })
      .onConflict((oc) => oc.columns(['site_id', 'environment']).doUpdateSet({ config: text, updated_at: now })).execute();
    await recordAudit(trx, ctx, { action: 'sdk_config.updated', targetType: 'sdk_config', targetId: environment, siteId, details: { fields: Object.keys(patch) } });
    return { site_id: siteId, environment, config, updated_at: isoOrNull(now) };
  });
}

/** What a browser may see: no revenue values, weights or verification settings. */
function publicConfig(siteId: string, environment: string, config: SdkConfig, updatedAt: number | null) {
  return {
    site_id: siteId,
    environment,
    sample_rate: config.sample_rate ?? 1,
    signals: config.signals ?? {},
    ignore_selectors: config.ignore_selectors ?? [],
    page_groups: config.page_groups ?? [],
    privacy: { respect_dnt: false, require_consent: false, cookieless: false, ...(config.privacy ?? {}) },
    updated_at: isoOrNull(updatedAt),
  };
}

/**
 * The browser-safe config for a site's publishable key. The route authenticates the key
 * (public routes skip the auth hook), so the context is only the credential, the store, the
 * time and the cache of the clip state; `userAgent` names the device class clips are filed under.
 */
export async function getPublicConfig({ ctx, input }: { ctx: Pick<ServiceContext, 'auth' | 'db' | 'now' | 'readCache'>; input: { env?: string; userAgent: string | null } }) {
  const { auth } = ctx;
  if (auth.kind !== 'key' || !auth.site || !auth.scopes.includes('ingest:write')) {
    throw new AppError('missing_scope', 'Use the site\'s publishable key', { required: ['ingest:write'] });
  }
  const environment = checkEnvironment(input.env ?? 'production');
  const { config, updatedAt } = await effectiveConfig(ctx.db, auth.site.id, environment);
  // The config is read afresh (a change shows at once); only the clip state may come from the cache.
  const clips = await publicClipsConfig(ctx.db, auth.site.id, config.clips, input.userAgent, ctx.now, ctx.readCache);
  return { ...publicConfig(auth.site.id, environment, config, updatedAt), clips };
}
