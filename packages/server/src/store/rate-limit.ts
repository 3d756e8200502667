// Fixed-window counters: in memory for one process, in Redis when several share the limits
// (with the memory counters standing in while Redis is unreachable, fallback-rate-limit.ts).
// A refused request is not counted, and windows are aligned to the injected clock, so tests
// choose exactly where a window starts.
import type { Redis } from 'ioredis';

/** One counted request: whether it is allowed, and the window's numbers for the headers. */
export interface Hit { allowed: boolean; limit: number; remaining: number; resetAt: number }

/** Where a limiter backed by Redis counts now, for /metrics. */
export interface LimiterStatus {
  /** True while the counts are kept in Redis; false while each process counts its own. */
  redisUp: boolean;
  /** Checks (hits and peeks) answered by this process's own counters since it started. */
  fallbackChecks: number;
  /** Times Redis became unreachable since the process started. */
  outages: number;
}

export interface RateLimiter {
  /** Counts one request unless the window is already full. */
  hit(bucket: string, limit: number, windowMs: number, now: number): Promise<Hit>;
  /** The current count, without counting. */
  peek(bucket: string, windowMs: number, now: number): Promise<number>;
  /** Holds a bucket shut until `until` (a lockout's end); a later hold replaces it. */
  hold(bucket: string, until: number, now: number): Promise<void>;
  /** When the hold on a bucket ends, or null when there is none or it has ended by `now`. */
  heldUntil(bucket: string, now: number): Promise<number | null>;
  /** Forgets a bucket: its hold and its count in the window holding `now` (an admin's unlock). */
  clear(bucket: string, windowMs: number, now: number): Promise<void>;
  /** Only limiters that can lose their shared store report one. */
  status?(): LimiterStatus;
  close(): Promise<void>;
}

/** Where the Redis limiter keeps its keys unless told otherwise. */
export const REDIS_KEY_PREFIX = 'mallard:rl:';

const windowStart = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

function result(allowed: boolean, count: number, limit: number, start: number, windowMs: number): Hit {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetAt: start + windowMs };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, { start: number; count: number }>();
  private readonly holds = new Map<string, number>();

  async hit(bucket: string, limit: number, windowMs: number, now: number): Promise<Hit> {
    const start = windowStart(now, windowMs);
    let entry = this.counts.get(bucket);
    if (!entry || entry.start !== start) {
      entry = { start, count: 0 };
      this.counts.set(bucket, entry);
      if (this.counts.size > 100_000) this.sweep(now, windowMs);
    }
    if (entry.count >= limit) return result(false, entry.count, limit, start, windowMs);
    entry.count++;
    return result(true, entry.count, limit, start, windowMs);
  }

  async peek(bucket: string, windowMs: number, now: number): Promise<number> {
    const entry = this.counts.get(bucket);
    return entry && entry.start === windowStart(now, windowMs) ? entry.count : 0;
  }

  async hold(bucket: string, until: number, now: number) {
    if (this.holds.size > 100_000) for (const [key, end] of this.holds) if (end <= now) this.holds.delete(key);
    this.holds.set(bucket, until);
  }

  async heldUntil(bucket: string, now: number): Promise<number | null> {
    const until = this.holds.get(bucket);
    return until !== undefined && until > now ? until : null;
  }

  async clear(bucket: string) {
    this.holds.delete(bucket);
    this.counts.delete(bucket);
  }

  async close() { this.counts.clear(); this.holds.clear(); }

  private sweep(now: number, windowMs: number) {
    const current = windowStart(now, windowMs);
    for (const [key, entry] of this.counts) if (entry.start < current) this.counts.delete(key);
  }
}

// Increment only while under the limit, atomically; the key carries its window start and
// expires a little after the window so Redis cleans up by itself.
const HIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return {0, count} end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count}`;

export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis, private readonly prefix = REDIS_KEY_PREFIX) {}

  async hit(bucket: string, limit: number, windowMs: number, now: number): Promise<Hit> {
    const start = windowStart(now, windowMs);
    const [allowed, count] = (await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}${bucket}:${start}`, limit, windowMs + 5_000)) as [number, number];
    return result(allowed === 1, count, limit, start, windowMs);
  }

  async peek(bucket: string, windowMs: number, now: number): Promise<number> {
    const value = await this.redis.get(`${this.prefix}${bucket}:${windowStart(now, windowMs)}`);
    return value ? Number(value) : 0;
  }

  // A hold's key keeps its end and expires a little after it (the injected clock decides when it ends).
  async hold(bucket: string, until: number, now: number) {
    await this.redis.set(`${this.prefix}hold:${bucket}`, String(until), 'PX', Math.max(1, until - now) + 5_000);
  }

  async heldUntil(bucket: string, now: number): Promise<number | null> {
    const value = await this.redis.get(`${this.prefix}hold:${bucket}`);
    const until = value ? Number(value) : null;
    return until !== null && until > now ? until : null;
  }

  async clear(bucket: string, windowMs: number, now: number) {
    await this.redis.del(`${this.prefix}hold:${bucket}`, `${this.prefix}${bucket}:${windowStart(now, windowMs)}`);
  }

  async close() { this.redis.disconnect(); }
}
