// The spec's limits table applied to requests: query and manage per org, failed
// authentications per client IP, logins per email and IP. Counters come from the injected
// RateLimiter (memory or Redis) and the injected clock.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './app-types.ts';
import { AppError } from '../domain/errors.ts';
import type { Hit, RateLimiter } from './rate-limit.ts';

export const MINUTE = 60_000;
export const FAILED_AUTH_PER_MIN = 30;
export const LOGIN_PER_MIN = 10;

export function setRateLimitHeaders(reply: FastifyReply, hit: Hit, now: number) {
  reply.header('ratelimit-limit', String(hit.limit));
  reply.header('ratelimit-remaining', String(hit.remaining));
  reply.header('ratelimit-reset', String(Math.max(0, Math.ceil((hit.resetAt - now) / 1000))));
}

export function rateLimited(hit: Hit, what: string): AppError {
  return new AppError('rate_limited', `Rate limit exceeded for ${what}; try again after the reset time`, {
    reset_at: new Date(hit.resetAt).toISOString(),
  });
}

export async function enforceRateLimit(services: Services, request: FastifyRequest, reply: FastifyReply, surface: 'query' | 'manage', now: number) {
  const orgId = request.auth!.org.id;
  const hit = await services.limiter.hit(`${surface}:org:${orgId}`, services.config.rateLimits[surface], MINUTE, now);
  setRateLimitHeaders(reply, hit, now);
  if (!hit.allowed) throw rateLimited(hit, `the ${surface} surface`);
}

export async function failedAuthBlocked(limiter: RateLimiter, ip: string, now: number) {
  return (await limiter.peek(`authfail:ip:${ip}`, MINUTE, now)) >= FAILED_AUTH_PER_MIN;
}

export async function recordFailedAuth(limiter: RateLimiter, ip: string, now: number) {
  await limiter.hit(`authfail:ip:${ip}`, FAILED_AUTH_PER_MIN, MINUTE, now);
}

export async function enforceLoginLimit(limiter: RateLimiter, email: string, ip: string, now: number) {
  const hit = await limiter.hit(`login:${email}:${ip}`, LOGIN_PER_MIN, MINUTE, now);
  if (!hit.allowed) throw rateLimited(hit, 'logins');
}
