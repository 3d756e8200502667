// Answers of the heaviest-called read routes, kept in memory for a short time and forgotten the
// moment anything they read changes.
//
// An answer is served again only while all of these hold:
// - no table its statements named has had a write committed in this process since it began
//   (store/table-changes.ts tracks every statement of the store's Kysely instances);
// - on SQLite, no other connection (another process: `mallard worker`, the CLI) has committed
//   since it began: `PRAGMA data_version` of the main connection is unchanged;
// - it is younger than maxAgeMs by the request's clock. This bounds how far a sliding window
//   ("the last 7 days") may lag, and, on PostgreSQL, how long a write by another process
//   (a separate pipeline worker) may go unseen.
// Requests for the same answer while it is being computed share the one computation, unless a
// write committed after it began.
import { LRUCache } from 'lru-cache';
import { recordingReads, type TableChanges } from './table-changes.ts';

interface Entry {
  /** The change clock when the computation began. */
  startedAt: number;
  dataVersion: number | null;
  /** The request time it was computed for. */
  now: number;
  /** The tables it read; null while it is still being computed. */
  tables: Set<string> | null;
  value: Promise<unknown>;
}

export interface ReadCacheOptions {
  changes: TableChanges;
  /** 0 turns the cache off. */
  maxAgeMs: number;
  /** SQLite's data_version of the main connection; null where it does not apply. */
  dataVersion: () => number | null;
  maxEntries?: number;
}

export class ReadCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(private readonly options: ReadCacheOptions) {
    this.entries = new LRUCache({ max: options.maxEntries ?? 1000 });
  }

  get enabled(): boolean { return this.options.maxAgeMs > 0; }

  /** The answer under `key` for a request at `now`: a kept one if still valid, else `compute()`'s. */
  get<T>(key: string, now: number, compute: () => Promise<T>): Promise<T> {
    if (!this.enabled) return compute();
    const dataVersion = this.options.dataVersion();
    const kept = this.entries.get(key);
    if (kept && this.valid(kept, now, dataVersion)) return kept.value as Promise<T>;
    const entry: Entry = { startedAt: this.options.changes.now(), dataVersion, now, tables: null, value: Promise.resolve() };
    entry.value = recordingReads(compute).then(
      ({ value, tables }) => { entry.tables = tables; return value; },
      (err) => { if (this.entries.get(key) === entry) this.entries.delete(key); throw err; },
    );
    this.entries.set(key, entry);
    return entry.value as Promise<T>;
  }

  private valid(entry: Entry, now: number, dataVersion: number | null): boolean {
    if (entry.dataVersion !== dataVersion) return false;
    const age = now - entry.now;
    if (age < 0 || age >= this.options.maxAgeMs) return false;
    const { changes } = this.options;
    // Still computing: which tables it reads is not known yet, so any write since it began counts.
    if (entry.tables === null) return changes.now() === entry.startedAt;
    return !changes.changedSince(entry.tables, entry.startedAt);
  }
}
