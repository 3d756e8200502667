// What ingest needs from a site's SDK config (the batch environment's, over production's):
// its own page groups and conversion events.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import { effectiveConfig } from '../domain/site-config.ts';
import type { PageGroup } from '../domain/normalize.ts';

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
