// The limits that guard credentials, in one place for every face: failed authentications
// per client IP (the HTTP hooks, ingest and failed logins share one lockout), logins per email
// and IP, and the lockout per account (per email, known or not). Counters come from an
// injected RateLimiter (memory or Redis, see store/rate-limit.ts), so every process sees them.
import type { Hit, RateLimiter } from '../store/rate-limit.ts';
import type { AuthContext } from './context.ts';
import { AppError } from './errors.ts';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from './time.ts';



export const FAILED_AUTH_PER_MIN = 30;
export const LOGIN_PER_MIN = 10;
/** OAuth client registrations per client IP an hour: registration is open, so it is bounded. */
export const OAUTH_REGISTRATIONS_PER_HOUR = 30;

export async function enforceOAuthRegistrationLimit(limiter: RateLimiter, ip: string, now: number) {
  const hit = await limiter.hit(`oauth-register:ip:${ip}`, OAUTH_REGISTRATIONS_PER_HOUR, HOUR_MS, now);
  if (!hit.allowed) throw rateLimited(hit, `OAuth client registrations from this address (${OAUTH_REGISTRATIONS_PER_HOUR} an hour)`);
}

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

/** Failed logins of one account before each further attempt waits (1 s, then 2 s, 4 s ...). */
export const ACCOUNT_DELAY_AFTER = 5;
/** Failed logins of one account within the hour that lock it for an hour. */
export const ACCOUNT_LOCK_AFTER = 20;
export const ACCOUNT_WINDOW_MS = HOUR_MS;
export const ACCOUNT_LOCK_MS = HOUR_MS;
/** The longest progressive delay: short enough that ACCOUNT_LOCK_AFTER failures fit in the hour (about 10 minutes of waiting). */
export const ACCOUNT_DELAY_MAX_MS = MINUTE_MS;

// The account is named by its email (lowercased) whether or not a user has it, so an unknown
// email is answered exactly as a known one: the lockout never tells which emails exist.
const failBucket = (email: string) => `loginfail:${email}`;
const lockBucket = (email: string) => `loginlock:${email}`;

export function accountLocked(until: number): AppError {
  return new AppError('account_locked', 'Too many failed logins for this account; try again after the reset time', {
    reset_at: new Date(until).toISOString(),
  });
}

/** Refuses a login (even with the right password) while the account waits out a delay or a lock. */
export async function enforceAccountLock(limiter: RateLimiter, email: string, now: number) {
  const until = await limiter.heldUntil(lockBucket(email), now);
  if (until !== null) throw accountLocked(until);
}

/**
 * Counts one failed login of the account; from the ACCOUNT_DELAY_AFTER-th failure in the hour
 * on, holds the account for a delay that doubles with each failure (capped), and from the
 * ACCOUNT_LOCK_AFTER-th, for an hour. Returns the hold's end, or null.
 */
export async function countAccountFailure(limiter: RateLimiter, email: string, now: number): Promise<{ until: number | null; locked: boolean }> {
  // The limit is never reached: refused attempts are not counted, so the count stops at the lock.
  const { limit, remaining } = await limiter.hit(failBucket(email), 1_000_000, ACCOUNT_WINDOW_MS, now);
  const failures = limit - remaining;
  if (failures < ACCOUNT_DELAY_AFTER) return { until: null, locked: false };
  const locked = failures >= ACCOUNT_LOCK_AFTER;
  const until = now + (locked ? ACCOUNT_LOCK_MS : Math.min(ACCOUNT_DELAY_MAX_MS, SECOND_MS * 2 ** (failures - ACCOUNT_DELAY_AFTER)));
  await limiter.hold(lockBucket(email), until, now);
  return { until, locked };
}

/** A correct login, or an admin's unlock: the account's failures and hold are forgotten. */
export async function clearAccountFailures(limiter: RateLimiter, email: string, now: number) {
  await limiter.clear(failBucket(email), ACCOUNT_WINDOW_MS, now);
  await limiter.clear(lockBucket(email), ACCOUNT_WINDOW_MS, now);
}
