// What a site's clips cost and what the server still wants today. Every count reads today's
// rows (UTC) through an index whose first columns are (site_id, created_at), so the public SDK
// config, which every page load fetches, stays a few index ranges bounded by a day's budget.
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import {
  CLIP_CONFIG_LIST_MAX, CLIPS_PER_ELEMENT_PER_DAY, effectiveClipRetentionDays, utcDayStart,
} from '../../domain/clips.ts';
import type { ServiceContext } from '../../domain/context.ts';
import type { ClipsConfig } from '../../domain/sdk-config.ts';
import { siteInScope } from '../../domain/tenancy.ts';
import { deviceClass } from '../../ingest/session.ts';
import type { ReadCache } from '../../store/read-cache.ts';
import type { Database } from '../../store/tables.ts';

/** Bytes of the site's clips and snapshots created since `day`. */
async function bytesSince(db: Kysely<Database>, siteId: string, day: number): Promise<number> {
  const row = await db.selectFrom('clips').select((eb) => eb.fn.sum<number | string | null>('bytes').as('n'))
    .where('site_id', '=', siteId).where('created_at', '>=', day).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How long a site's clip state (below) is served again to the public SDK config; 0 when the read cache is off. */
export const CLIP_STATE_CACHE_MS = 5000;

/** What the server still takes today: the site's byte budget and what today's rows have used of it. */
interface ClipState { budget: number; spent: number; full: string[]; taken: string[] }

async function clipState(db: Kysely<Database>, siteId: string, day: number): Promise<ClipState> {
  const [site, spent, full, taken] = await Promise.all([
    db.selectFrom('sites').select('clip_daily_bytes').where('id', '=', siteId).executeTakeFirstOrThrow(),
    bytesSince(db, siteId, day),
    db.selectFrom('clip_signals').select('element')
      .where('site_id', '=', siteId).where('created_at', '>=', day).where('element', '!=', '')
      .groupBy('element').having((eb) => eb.fn.count('clip_id').distinct(), '>=', CLIPS_PER_ELEMENT_PER_DAY)
      .orderBy('element').limit(CLIP_CONFIG_LIST_MAX).execute(),
    db.selectFrom('clips').select(['device', 'page'])
      .where('site_id', '=', siteId).where('created_at', '>=', day).where('kind', '=', 'snapshot')
      .orderBy('created_at').limit(CLIP_CONFIG_LIST_MAX).execute(),
  ]);
  return {
    budget: Number(site.clip_daily_bytes), spent,
    full: full.map((r) => r.element), taken: [...new Set(taken.map((r) => `${r.device}:${r.page}`))],
  };
}

/**
 * The `clips` part of the public SDK config (GET /v1/sdk-config): `{ enabled: false }` when off;
 * when on, the masking settings plus what the server still takes today, and the device class it
 * files this user agent's uploads under. Every page load asks, so the clip state (four reads)
 * comes through `cache` when given: one computation per site and UTC day for a few seconds,
 * forgotten at once when this process writes a table it read (a clip stored, a budget changed;
 * store/read-cache.ts). `config` itself is the caller's, read afresh.
 */
export async function publicClipsConfig(db: Kysely<Database>, siteId: string, config: ClipsConfig | undefined, userAgent: string | null, now: number, cache?: ReadCache) {
  if (!config?.enabled) return { enabled: false as const };
  const day = utcDayStart(now);
  const compute = () => clipState(db, siteId, day);
  const state = cache ? await cache.get(JSON.stringify(['clip-state', siteId, day]), now, compute) : await compute();
  return {
    enabled: true as const,
    unmask: config.unmask ?? [],
    allow_media: config.allow_media ?? false,
    accepting: state.spent < state.budget,
    full_elements: state.full,
    snapshots_taken: state.taken,
    device: deviceClass(userAgent),
  };
}

/** A site's clip settings and totals (the settings screen), for a credential that may see the site. */
export async function clipUsage({ ctx, input, maxRetentionDays }: { ctx: ServiceContext; input: { id: string }; maxRetentionDays: number }) {
  const site = await siteInScope(ctx, input.id);
  const day = utcDayStart(ctx.now);
  const [settings, totals, today] = await Promise.all([
    ctx.db.selectFrom('sites').select(['clip_retention_days', 'clip_daily_bytes', 'retention_days']).where('id', '=', site.id).executeTakeFirstOrThrow(),
    ctx.db.selectFrom('clips').select((eb) => ['kind', eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string | null>('bytes').as('bytes')])
      .where('site_id', '=', site.id).groupBy('kind').execute(),
    bytesSince(ctx.db, site.id, day),
  ]);
  const of = (kind: string) => totals.find((t) => t.kind === kind);
  return {
    site_id: site.id,
    clip_retention_days: settings.clip_retention_days,
    effective_clip_retention_days: effectiveClipRetentionDays(settings.clip_retention_days, settings.retention_days, maxRetentionDays),
    clip_daily_bytes: Number(settings.clip_daily_bytes),
    clips: Number(of('clip')?.n ?? 0),
    snapshots: Number(of('snapshot')?.n ?? 0),
    bytes: totals.reduce((sum, t) => sum + Number(t.bytes ?? 0), 0),
    today_bytes: today,
    today_from: iso(day),
    accepting: today < Number(settings.clip_daily_bytes),
  };
}
