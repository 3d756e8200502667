// MCP's own rate budget: the calls that read data (tools/call, resources/read, prompts/get)
// count per credential against RATE_LIMIT_MCP_PER_MIN, apart from the query surface's per-org
// limit, so an assistant's session never spends a REST client's budget and vice versa. The
// handshake, notifications, ping and the listings are free: a client sends them on its own.
import type { AuthContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import { MINUTE_MS, SECOND_MS } from '../domain/time.ts';
import type { RateLimiter } from '../store/rate-limit.ts';

/** The counter of one credential: a key by its id, a signed-in person by their user id. */
export function budgetBucket(auth: AuthContext): string {
  if (auth.kind === 'key' && auth.keyId !== null) return `mcp:key:${auth.keyId}`;
  if (auth.user !== null) return `mcp:user:${auth.user.id}`;
  return `mcp:org:${auth.org.id}`;
}

/** The refusal: the API's `rate_limited`, with when the window reopens and how many seconds that is. */
export function mcpRateLimited(resetAt: number, now: number, limit: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / SECOND_MS));
  return new AppError('rate_limited', `Rate limit exceeded: ${limit} MCP calls a minute for this credential; retry after ${retryAfter} seconds`, {
    reset_at: new Date(resetAt).toISOString(),
    retry_after: retryAfter,
  });
}

/** Counts one call of the exchange's credential, or throws `rate_limited` (a refused call is not counted). */
export function callBudget(limiter: RateLimiter, limit: number, auth: AuthContext, now: number): () => Promise<void> {
  const bucket = budgetBucket(auth);
  return async () => {
    const hit = await limiter.hit(bucket, limit, MINUTE_MS, now);
    if (!hit.allowed) throw mcpRateLimited(hit.resetAt, now, limit);
  };
}
