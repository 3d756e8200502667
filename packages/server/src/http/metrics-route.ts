// GET /metrics: public unless METRICS_TOKEN is set; then it needs `Authorization: Bearer
// <token>`, compared in constant time, and a wrong token counts towards the per-address
// failed-authentication lockout like a wrong key.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { App } from './app-types.ts';
import type { Metrics } from './metrics.ts';
import { bearerToken } from './access.ts';
import { constantTimeEqual } from '../auth/secrets.ts';
import { AppError } from '../domain/errors.ts';
import { withFailedAuthLockout } from '../domain/rate-limits.ts';

// Digests of equal length, so the comparison says nothing about the token's length either.
const digest = (text: string) => createHash('sha256').update(text).digest('base64');

export function metricsRoute(app: App, metrics: Metrics, token: string | null) {
  const expected = token === null ? null : digest(token);
  app.get('/metrics', {
    config: { access: { surface: 'public' }, docs: { errors: ['missing_auth', 'invalid_key', 'rate_limited'] } },
    schema: {
      tags: ['health'],
      summary: 'Prometheus metrics. Public, unless the server has METRICS_TOKEN: then `Authorization: Bearer <METRICS_TOKEN>` is required (401 missing_auth without it, 401 invalid_key for another token)',
      response: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: Type.String() } } } },
    },
  }, async (request, reply) => {
    if (expected !== null) {
      const { limiter, clock } = app.services;
      await withFailedAuthLockout(limiter, request.ip, clock.now(), async () => {
        if (!constantTimeEqual(digest(bearerToken(request)), expected)) throw new AppError('invalid_key', 'The metrics token is not valid');
      });
    }
    reply.header('content-type', metrics.contentType);
    return metrics.render();
  });
}
