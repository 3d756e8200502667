// What every /query route shares: its access rule, and `page` parameters normalized the way
// ingest normalizes them, so a reader asks for the page as it was stored.
import type { Store } from '../store/db.ts';
import { loadIngestSettings } from '../ingest/settings.ts';
import { normalizePage } from '../domain/normalize.ts';
import { invalidInput } from '../domain/errors.ts';

export const QUERY_ACCESS = { surface: 'query', scopes: ['query:read', 'mcp:read'], role: 'viewer' } as const;

export async function pageParam(store: Store, siteId: string, value: string, field = 'page'): Promise<string> {
  if (!value.startsWith('/')) throw invalidInput(field, 'must be a path starting with /');
  const { pageGroups } = await loadIngestSettings(store.db, siteId, 'production');
  const page = normalizePage(value, pageGroups);
  if (!page) throw invalidInput(field, 'is not a usable page path');
  return page;
}
