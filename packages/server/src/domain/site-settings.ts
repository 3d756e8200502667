// What ingest and the readers need from a site's SDK config (the environment's, over
// production's): its page groups and conversion events; and a `page` parameter normalized the
// way ingest stored it, so a reader asks for the page as it was stored.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { CallMemo } from './context.ts';
import { effectiveConfig, loadSignalWeights } from './site-config.ts';
import { normalizePage, type PageGroup } from './normalize.ts';
import { invalidInput } from './errors.ts';
import { weightResolver, type WeightOverrides } from './signals.ts';

export const DEFAULT_CONVERSION_EVENTS = ['subscription_started', 'checkout_completed', 'purchase_completed'] as const;

export interface IngestSettings {
  pageGroups: PageGroup[];
  conversionEvents: ReadonlySet<string>;
  /** A signal type's weight as scoring resolves it (the production config's signal_weights): the session's friction weight. */
  signalWeight: (type: string) => number;
}

interface StoredConfig {
  page_groups?: { match: string; page: string }[];
  revenue_config?: { conversion_events?: string[] };
  signal_weights?: WeightOverrides | null;
}

export function ingestSettingsFrom(config: StoredConfig | null, weights: WeightOverrides = config?.signal_weights ?? {}): IngestSettings {
  const pageGroups: PageGroup[] = [];
  for (const group of config?.page_groups ?? []) {
    try {
      pageGroups.push({ match: new RegExp(group.match), page: group.page });
    } catch {
      // Patterns are validated when saved; an unreadable one is skipped rather than failing ingest.
    }
  }
  const events = config?.revenue_config?.conversion_events;
  return { pageGroups, conversionEvents: new Set(events?.length ? events : DEFAULT_CONVERSION_EVENTS), signalWeight: weightResolver(weights) };
}

export async function loadIngestSettings(db: Kysely<Database>, siteId: string, environment: string): Promise<IngestSettings> {
  const { config } = await effectiveConfig(db, siteId, environment);
  // Weights are the site's own (production's), whatever the batch's environment, as scoring reads them.
  const weights = environment === 'production' ? config.signal_weights ?? {} : await loadSignalWeights(db, siteId);
  return ingestSettingsFrom(config, weights);
}

/** What reading a site's settings needs: the store, and the call's memo if it has one (domain/operation.ts). */
export type SettingsContext = { db: Kysely<Database>; memo?: CallMemo };

/** The site's production settings, read once per call when the context has a memo. */
export function siteSettings(ctx: SettingsContext, siteId: string): Promise<IngestSettings> {
  const memo = ctx.memo?.settings;
  let settings = memo?.get(siteId) as Promise<IngestSettings> | undefined;
  if (!settings) {
    settings = loadIngestSettings(ctx.db, siteId, 'production');
    memo?.set(siteId, settings);
  }
  return settings;
}

/** A page path as a reader gives it, normalized with the site's production page groups. */
export async function pageParam(ctx: SettingsContext, siteId: string, value: string, field = 'page'): Promise<string> {
  if (!value.startsWith('/')) throw invalidInput(field, 'must be a path starting with /');
  const { pageGroups } = await siteSettings(ctx, siteId);
  const page = normalizePage(value, pageGroups);
  if (!page) throw invalidInput(field, 'is not a usable page path');
  return page;
}
