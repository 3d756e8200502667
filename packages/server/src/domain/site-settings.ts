// What ingest and the readers need from a site's SDK config (the environment's, over
// production's): its page groups and conversion events; and a `page` parameter normalized the
// way ingest stored it, so a reader asks for the page as it was stored.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import { effectiveConfig } from './site-config.ts';
import { normalizePage, type PageGroup } from './normalize.ts';
import { invalidInput } from './errors.ts';

export const DEFAULT_CONVERSION_EVENTS = ['subscription_started', 'checkout_completed', 'purchase_completed'] as const;

export interface IngestSettings { pageGroups: PageGroup[]; conversionEvents: ReadonlySet<string> }

interface StoredConfig {
  page_groups?: { match: string; page: string }[];
  revenue_config?: { conversion_events?: string[] };
}

export function ingestSettingsFrom(config: StoredConfig | null): IngestSettings {
  const pageGroups: PageGroup[] = [];
  for (const group of config?.page_groups ?? []) {
    try {
      pageGroups.push({ match: new RegExp(group.match), page: group.page });
    } catch {
      // Patterns are validated when saved; an unreadable one is skipped rather than failing ingest.
    }
  }
  const events = config?.revenue_config?.conversion_events;
  return { pageGroups, conversionEvents: new Set(events?.length ? events : DEFAULT_CONVERSION_EVENTS) };
}

export async function loadIngestSettings(db: Kysely<Database>, siteId: string, environment: string): Promise<IngestSettings> {
  return ingestSettingsFrom((await effectiveConfig(db, siteId, environment)).config);
}

/** A page path as a reader gives it, normalized with the site's production page groups. */
export async function pageParam(db: Kysely<Database>, siteId: string, value: string, field = 'page'): Promise<string> {
  if (!value.startsWith('/')) throw invalidInput(field, 'must be a path starting with /');
  const { pageGroups } = await loadIngestSettings(db, siteId, 'production');
  const page = normalizePage(value, pageGroups);
  if (!page) throw invalidInput(field, 'is not a usable page path');
  return page;
}
