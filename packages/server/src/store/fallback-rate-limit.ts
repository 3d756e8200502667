// Rate limits counted in Redis, and in this process's memory while Redis is unreachable, so a
// Redis outage never fails a request: meanwhile each process enforces the limits on its own (N
// processes allow up to N times a limit), and counting returns to Redis by itself once it
// answers again. One warning when Redis goes, one info line when it is back (docs/operations.md).
import { Redis, type RedisOptions } from 'ioredis';
import { MemoryRateLimiter, REDIS_KEY_PREFIX, RedisRateLimiter, type Hit, type LimiterStatus, type RateLimiter } from './rate-limit.ts';

/** A command Redis has not answered by then means Redis is gone: no request waits longer on it. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
/** While Redis is gone, how often a write is tried to learn whether it is back. */
export const REDIS_PROBE_INTERVAL_MS = 1000;

export const REDIS_DOWN_MESSAGE = 'Redis unreachable: rate limits are counted per process until it is back';
export const REDIS_BACK_MESSAGE = 'Redis reachable again: rate limits are counted in Redis';

export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Fail fast rather than wait: a request counted in memory now beats one held until Redis returns. */
export const FAIL_FAST_REDIS: RedisOptions = {
  // A command sent while disconnected fails at once instead of queueing for the reconnect,
  enableOfflineQueue: false,
  // one in flight when the connection drops fails at once instead of being retried,
  maxRetriesPerRequest: 0,
  // and is never sent again after the reconnect: it was already counted in memory.
  autoResendUnfulfilledCommands: false,
  // A Redis that holds the connection open but does not answer (stopped, swapping).
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: 2000,
  // Reconnect for ever, at most a second apart, so the return is noticed within about a second.
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
};

export function openRedisRateLimiter(url: string, log: LimiterLog): FallbackRateLimiter {
  return new FallbackRateLimiter(new Redis(url, FAIL_FAST_REDIS), log);
}

export class FallbackRateLimiter implements RateLimiter {
  private readonly shared: RedisRateLimiter;
  private readonly local = new MemoryRateLimiter();
  private redisUp = false;
  /** When the current outage began; null while Redis is up or has not answered yet. */
  private downSince: number | null = null;
  private checksAtDown = 0;
  private fallbackChecks = 0;
  private outages = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private closed = false;

  constructor(private readonly redis: Redis, private readonly log: LimiterLog, private readonly prefix = REDIS_KEY_PREFIX) {
    this.shared = new RedisRateLimiter(redis, prefix);
    // The connection's events say when Redis goes; only a probe that succeeds says it is back.
    // The listener on 'error' also keeps ioredis from printing every failed reconnect.
    redis.on('error', (err: Error) => this.wentDown(err));
    redis.on('close', () => this.wentDown(new Error('connection to Redis closed')));
    redis.on('ready', () => void this.probe());
  }

  async hit(bucket: string, limit: number, windowMs: number, now: number): Promise<Hit> {
    if (this.redisUp) {
      try {
        return await this.shared.hit(bucket, limit, windowMs, now);
      } catch (err) {
        this.wentDown(err);
      }
    }
    this.fallbackChecks++;
    return this.local.hit(bucket, limit, windowMs, now);
  }

  async peek(bucket: string, windowMs: number, now: number): Promise<number> {
    if (this.redisUp) {
      try {
        return await this.shared.peek(bucket, windowMs, now);
      } catch (err) {
        this.wentDown(err);
      }
    }
    this.fallbackChecks++;
    return this.local.peek(bucket, windowMs, now);
  }

  hold(bucket: string, until: number, now: number): Promise<void> {
    return this.either((l) => l.hold(bucket, until, now));
  }

  heldUntil(bucket: string, now: number): Promise<number | null> {
    return this.either((l) => l.heldUntil(bucket, now));
  }

  clear(bucket: string, windowMs: number, now: number): Promise<void> {
    return this.either((l) => l.clear(bucket, windowMs, now));
  }

  /** Redis while it answers, else this process's own memory (as hit and peek do). */
  private async either<T>(run: (limiter: RateLimiter) => Promise<T>): Promise<T> {
    if (this.redisUp) {
      try {
        return await run(this.shared);
      } catch (err) {
        this.wentDown(err);
      }
    }
    this.fallbackChecks++;
    return run(this.local);
  }

  status(): LimiterStatus {
    return { redisUp: this.redisUp, fallbackChecks: this.fallbackChecks, outages: this.outages };
  }

  async close() {
    this.closed = true;
    this.stopProbing();
    this.redis.disconnect();
    await this.local.close();
  }

  private wentDown(err: unknown) {
    if (this.closed) return;
    this.redisUp = false;
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.checksAtDown = this.fallbackChecks;
    this.outages++;
    this.log.warn({ err }, REDIS_DOWN_MESSAGE);
    this.probeTimer = setInterval(() => void this.probe(), REDIS_PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private async probe() {
    if (this.closed || this.probing || this.redisUp) return;
    this.probing = true;
    try {
      // A write, not a PING: a Redis that answers but refuses writes (out of memory, a
      // read-only replica) would fail every count.
      await this.redis.set(`${this.prefix}probe`, '1', 'PX', 10_000);
      this.cameBack();
    } catch (err) {
      // Still gone (the next probe tries again), or connected but refusing writes: an outage too.
      this.wentDown(err);
    } finally {
      this.probing = false;
    }
  }

  private cameBack() {
    if (this.closed) return;
    this.redisUp = true;
    this.stopProbing();
    // The first connection at start is no return.
    if (this.downSince === null) return;
    this.log.info({ downMs: Date.now() - this.downSince, fallbackChecks: this.fallbackChecks - this.checksAtDown }, REDIS_BACK_MESSAGE);
    this.downSince = null;
  }

  private stopProbing() {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }
}
