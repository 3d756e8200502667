// The spec's limits table applied to requests: query and manage per org. The credential
// limits (failed authentications, logins) live in domain/rate-limits.ts, shared with ingest.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from './app-types.ts';
import { rateLimited } from '../domain/rate-limits.ts';
import type { Hit } from '../store/rate-limit.ts';
import { MINUTE_MS } from '../domain/time.ts';

export function setRateLimitHeaders(reply: FastifyReply, hit: Hit, now: number) {
  reply.header('ratelimit-limit', String(hit.limit));
  reply.header('ratelimit-remaining', String(hit.remaining));
  reply.header('ratelimit-reset', String(Math.max(0, Math.ceil((hit.resetAt - now) / 1000))));
}

export async function enforceRateLimit(services: Services, request: FastifyRequest, reply: FastifyReply, surface: 'query' | 'manage', now: number) {
  const orgId = request.auth!.org.id;
  const hit = await services.limiter.hit(`${surface}:org:${orgId}`, services.config.rateLimits[surface], MINUTE_MS, now);
  setRateLimitHeaders(reply, hit, now);
  if (!hit.allowed) throw rateLimited(hit, `the ${surface} surface`);
}
