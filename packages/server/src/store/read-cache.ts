// Answers of the heaviest-called read routes, kept in memory for a short time and forgotten the
// moment anything they read changes.
//
// An answer is served again only while all of these hold:
// - no table its statements named has had a write committed in this process since it began
//   (store/table-changes.ts tracks every statement of the store's Kysely instances);
// - on SQLite, no other connection (another process: `mallard worker`, the CLI) has committed
//   since it began: `PRAGMA data_version` of the main connection is unchanged;
// - it was ready less than maxAgeMs ago by the clock, and the request is not earlier than the
//   one it was computed for. This bounds how far a sliding window ("the last 7 days") may lag
//   behind what a fresh computation would give, and, on PostgreSQL, how long a write by another
//   process (a separate pipeline worker) may go unseen. The age counts from when the answer was
//   ready, not from when it began: an answer slower to compute than maxAgeMs would otherwise be
//   too old the moment it is ready, and every request would compute it again.
// Requests for the same answer while it is being computed share the one computation, unless a
// write committed after it began.
import { LRUCache } from 'lru-cache';
import { systemClock, type Clock } from '../clock.ts';
import { recordingReads, type TableChanges } from './table-changes.ts';

interface Entry {
  /** The change clock when the computation began. */
  startedAt: number;
  dataVersion: number | null;
  /** The request time it was computed for. */
  now: number;
  /** When it was ready, by the cache's clock; null while it is still being computed. */
  readyAt: number | null;
  /** The tables it read; null while it is still being computed. */
  tables: Set<string> | null;
  /** What it holds, as the length of its JSON (1 while it is being computed). */
  size: number;
  value: Promise<unknown>;
}

/**
 * The answers kept, all together, as the length of their JSON: about a third to a half of the
 * memory they take (the objects, and the bytes okOnce keeps of each). One answer may take a
 * quarter of it; a larger one is served to the requests that shared it and not kept.
 */
export const READ_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** The length of a value's JSON; an answer that is not JSON (none should be) is never kept. */
function sizeOf(value: unknown): number {
  try {
    return Math.max(1, JSON.stringify(value)?.length ?? 1);
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}

export interface ReadCacheOptions {
  changes: TableChanges;
  /** 0 turns the cache off. */
  maxAgeMs: number;
  /** SQLite's data_version of the main connection; null where it does not apply. */
  dataVersion: () => number | null;
  maxEntries?: number;
  /** Default READ_CACHE_MAX_BYTES. */
  maxBytes?: number;
  /** The clock requests take their time from (the app's injected clock); default the system's. */
  clock?: Clock;
}

export class ReadCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(private readonly options: ReadCacheOptions) {
    const maxBytes = options.maxBytes ?? READ_CACHE_MAX_BYTES;
    this.entries = new LRUCache({ max: options.maxEntries ?? 1000, maxSize: maxBytes, maxEntrySize: maxBytes / 4, sizeCalculation: (entry) => entry.size });
  }

  get enabled(): boolean { return this.options.maxAgeMs > 0; }

  /** The answer under `key` for a request at `now`: a kept one if still valid, else `compute()`'s. */
  get<T>(key: string, now: number, compute: () => Promise<T>): Promise<T> {
    if (!this.enabled) return compute();
    const dataVersion = this.options.dataVersion();
    const kept = this.entries.get(key);
    if (kept && this.valid(kept, now, dataVersion)) return kept.value as Promise<T>;
    const entry: Entry = { startedAt: this.options.changes.now(), dataVersion, now, readyAt: null, tables: null, size: 1, value: Promise.resolve() };
    entry.value = recordingReads(compute).then(
      ({ value, tables }) => {
        entry.tables = tables;
        entry.readyAt = Math.max(now, (this.options.clock ?? systemClock).now());
        // Put back with its size (lru-cache sizes an entry when it is added): the least recent
        // answers go to make room, or it is not kept at all.
        if (this.entries.peek(key) === entry) {
          entry.size = sizeOf(value);
          this.entries.delete(key);
          this.entries.set(key, entry);
        }
        return value;
      },
      (err) => { if (this.entries.get(key) === entry) this.entries.delete(key); throw err; },
    );
    this.entries.set(key, entry);
    return entry.value as Promise<T>;
  }

  private valid(entry: Entry, now: number, dataVersion: number | null): boolean {
    if (entry.dataVersion !== dataVersion || now < entry.now) return false;
    // A request that came while it was being computed gets it, however long that took.
    if (entry.readyAt !== null && now - entry.readyAt >= this.options.maxAgeMs) return false;
    const { changes } = this.options;
    // Still computing: which tables it reads is not known yet, so any write since it began counts.
    if (entry.tables === null) return changes.now() === entry.startedAt;
    return !changes.changedSince(entry.tables, entry.startedAt);
  }
}
