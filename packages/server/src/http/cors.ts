// Open CORS, for the two routes browsers call from any site: ingest and the public SDK
// config. Register it inside that route's own plugin scope: every other route sends no CORS
// headers, so browsers cannot call them cross-origin.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

export function openCors(scope: FastifyInstance, path: string, methods: string) {
  scope.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', 'x-request-id, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after');
  });
  scope.options(path, {
    config: { access: { surface: 'public' } },
    schema: {
      tags: ['cors'], summary: `CORS preflight: any origin may call ${methods} here`,
      response: { 204: Type.Null({ description: 'No content; the access-control-* headers allow any origin' }) },
    },
  }, async (_request, reply) => {
    reply.header('access-control-allow-methods', `${methods}, OPTIONS`);
    reply.header('access-control-allow-headers', 'content-type, authorization, content-encoding');
    reply.header('access-control-max-age', '86400');
    return reply.code(204).send();
  });
}
