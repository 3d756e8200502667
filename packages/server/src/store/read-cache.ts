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
  value: Promise<unknown>;
}

export interface ReadCacheOptions {
  changes: TableChanges;
  /** 0 turns the cache off. */
  maxAgeMs: number;
  /** SQLite's data_version of the main connection; null where it does not apply. */
  dataVersion: () => number | null;
  maxEntries?: number;
  /** The clock requests take their time from (the app's injected clock); default the system's. */
  clock?: Clock;
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
    const entry: Entry = { startedAt: this.options.changes.now(), dataVersion, now, readyAt: null, tables: null, value: Promise.resolve() };
    entry.value = recordingReads(compute).then(
      ({ value, tables }) => {
        entry.tables = tables;
        entry.readyAt = Math.max(now, (this.options.clock ?? systemClock).now());
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
