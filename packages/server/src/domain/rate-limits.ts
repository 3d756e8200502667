// The limits that guard credentials, in one place for every face: failed authentications
// per client IP (the HTTP hooks and ingest share one lockout) and logins per email and IP.
// Counters come from an injected RateLimiter (memory or Redis, see store/rate-limit.ts).
import type { Hit, RateLimiter } from '../store/rate-limit.ts';
import type { AuthContext } from './context.ts';
import { AppError } from './errors.ts';
import { MINUTE_MS } from './time.ts';



export const FAILED_AUTH_PER_MIN = 30;
export const LOGIN_PER_MIN = 10;

export function rateLimited(hit: Hit, what: string): AppError {
  return new AppError('rate_limited', `Rate limit exceeded for ${what}; try again after the reset time`, {
    reset_at: new Date(hit.resetAt).toISOString(),
  });
}

/**
 * Runs one authentication attempt under the failed-authentication lockout: an IP with too
 * many recent 401s is refused before trying, and every 401 the attempt throws counts.
 */
export async function withFailedAuthLockout<T = AuthContext>(limiter: RateLimiter, ip: string, now: number, attempt: () => Promise<T>): Promise<T> {
  const bucket = `authfail:ip:${ip}`;
  if ((await limiter.peek(bucket, MINUTE_MS, now)) >= FAILED_AUTH_PER_MIN) {
    const resetAt = Math.ceil((now + 1) / MINUTE_MS) * MINUTE_MS;
    throw new AppError('rate_limited', 'Too many failed authentication attempts', { reset_at: new Date(resetAt).toISOString() });
  }
  try {
    return await attempt();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) await limiter.hit(bucket, FAILED_AUTH_PER_MIN, MINUTE_MS, now);
    throw err;
  }
}

export async function enforceLoginLimit(limiter: RateLimiter, email: string, ip: string, now: number) {
  const hit = await limiter.hit(`login:${email}:${ip}`, LOGIN_PER_MIN, MINUTE_MS, now);
  if (!hit.allowed) throw rateLimited(hit, 'logins');
}
