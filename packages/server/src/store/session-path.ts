// A session's path (sessions.path, migration 0022): its pageviews, custom (track) events and
// signals in order, as one compact JSON array on the session row, so a funnel reads one row per
// candidate session instead of joining its events and signals (features/funnels).
//
// Entries, in order of time, then of event id (the order the funnel walks hits in):
//   [at, "p", page]               a pageview
//   [at, "e", name, page]         a track event named `name`, sent on `page`
//   [at, "s", signal_type, page]  a signal (one per row of the signals table)
//
// Invariant: a non-null path holds exactly the session's stored pageviews, track events and
// signals. NULL means "not kept" (more than MAX_PATH_ENTRIES entries, a row written by something
// other than ingest, or the session straddles the retention cutoff): readers then load that
// session's events and signals instead. Who keeps it: ingest merges each batch's new events
// (ingest/session.ts, in the transaction that stores them); the migration backfills it from the
// stored events; retention clears it on the sessions whose early events it deleted; erasure and
// site purge delete the whole row.
export type PathEntry = [at: number, kind: 'p', page: string] | [at: number, kind: 'e' | 's', value: string, page: string];

/** The most entries a path keeps; a longer session's path is NULL (read from its events). */
export const MAX_PATH_ENTRIES = 1000;

/** The path after adding `fresh` (already in order): still sorted, or null once over the cap or if it was not kept. */
export function extendPath(path: string | null, fresh: readonly PathEntry[]): string | null {
  if (path === null) return null;
  if (fresh.length === 0) return path;
  const entries = JSON.parse(path) as PathEntry[];
  if (entries.length + fresh.length > MAX_PATH_ENTRIES) return null;
  // Stable: at equal times the stored entries (earlier batches, lower event ids) stay first.
  const merged = entries.length > 0 && fresh[0][0] < entries[entries.length - 1][0]
    ? [...entries, ...fresh].sort((a, b) => a[0] - b[0])
    : [...entries, ...fresh];
  return JSON.stringify(merged);
}

/** A stored path's entries; a path that does not parse is treated as not kept. */
export function readPath(path: string | null): PathEntry[] | null {
  if (path === null) return null;
  try {
    const entries = JSON.parse(path) as unknown;
    return Array.isArray(entries) ? (entries as PathEntry[]) : null;
  } catch {
    return null;
  }
}
