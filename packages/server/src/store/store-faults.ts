// What a store error says about the store itself, apart from the request that met it: the
// database unreachable (a restart, a dropped connection) or out of space. The request path
// answers these 503 with Retry-After instead of 500 (app.ts toAppError); nothing else here
// decides anything. PostgreSQL errors carry SQLSTATE codes; node errors carry errno codes;
// better-sqlite3 errors carry SQLITE_* codes.

export type StoreFault = 'unavailable' | 'storage_full';

/** SQLSTATE classes and codes of a connection that is gone or not ready (admin shutdown, crash, starting up). */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const NET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's own messages when a pooled connection ends under a query. */
const PG_GONE_MESSAGES = [/Connection terminated/i, /connection is closed/i, /Client has encountered a connection error/i, /timeout exceeded when trying to connect/i];

export function storeFault(error: unknown): StoreFault | null {
  if (!error || typeof error !== 'object') return null;
  const code = (error as { code?: unknown }).code;
  if (code === '53100' || code === 'SQLITE_FULL' || code === 'ENOSPC') return 'storage_full';
  if (typeof code === 'string' && (PG_UNAVAILABLE.has(code) || NET_UNAVAILABLE.has(code))) return 'unavailable';
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && PG_GONE_MESSAGES.some((re) => re.test(message))) return 'unavailable';
  return null;
}

/** How long a client should wait before retrying, per fault. */
export const FAULT_RETRY_AFTER_SECONDS: Readonly<Record<StoreFault, number>> = { unavailable: 5, storage_full: 30 };

/** Where the store lives, for the one log line of an episode: the file, or the host and database (never the password). */
export function storeLocation(url: string): string {
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length);
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}

/** How long after its last failure a success ends an episode. */
export const EPISODE_QUIET_MS = 1000;

interface EpisodeLog { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void }

/**
 * Faults come in episodes: a restart, a full disk. Each statement that meets one is counted (the
 * metric), but only the first of an episode is logged, with the real cause and where the store
 * lives, and its end once: the first write that commits at least EPISODE_QUIET_MS after the
 * last failure (for `unavailable`, any statement that succeeds, since reads need the connection
 * too). A log attached later (the
 * server's logger exists only after the store) receives the episodes from then on.
 */
export class StoreFaultEpisodes {
  /** Failed statements (or requests) that met each fault since the process started. */
  readonly counts: Record<StoreFault, number> = { unavailable: 0, storage_full: 0 };
  private current: { fault: StoreFault; since: number; last: number } | null = null;
  private log: EpisodeLog | null = null;
  /** Errors already counted: the driver layer and the request path may both see the same one. */
  private readonly seen = new WeakSet<object>();

  constructor(private readonly location: string, private readonly now: () => number = Date.now) {}

  logTo(log: EpisodeLog): void { this.log = log; }

  /** The fault of the episode under way, if any. */
  active(): StoreFault | null { return this.current?.fault ?? null; }

  /** Notes a failed statement; returns its fault, or null for an error of the statement itself. */
  failed(error: unknown): StoreFault | null {
    const fault = storeFault(error);
    if (!fault) return null;
    if (this.seen.has(error as object)) return fault;
    this.seen.add(error as object);
    this.counts[fault]++;
    if (this.current?.fault === fault) {
      this.current.last = this.now();
    } else {
      this.current = { fault, since: this.now(), last: this.now() };
      const { code, message } = error as { code?: string; message?: string };
      this.log?.warn({ fault, store: this.location, cause: { code, message } }, fault === 'storage_full'
        ? `store out of disk space at ${this.location}: writes are refused with 503 storage_full until space returns`
        : `store unreachable at ${this.location}: requests are answered 503 unavailable until it is back`);
    }
    return fault;
  }

  /** Notes a statement that succeeded: a read ends an `unavailable` episode, a committed write any. */
  succeeded(wrote: boolean): void {
    if (!this.current || (!wrote && this.current.fault === 'storage_full')) return;
    // A restart ends each pooled connection as it is next used: a query on a fresh connection
    // may succeed between two that fail. The episode ends only after a quiet moment.
    if (this.now() - this.current.last < EPISODE_QUIET_MS) return;
    const { fault, since } = this.current;
    this.current = null;
    this.log?.info({ fault, store: this.location, seconds: Math.round((this.now() - since) / 100) / 10 }, `store ${fault === 'storage_full' ? 'writable' : 'reachable'} again at ${this.location}`);
  }
}
