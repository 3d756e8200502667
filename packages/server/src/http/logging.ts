// The request logger's settings, shared by the server and the tests that read its lines.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** A credential in a query string (`/v1/sdk-config?key=`) never reaches a log line. */
export const redactQueryKeys = (url: string) => url.replace(/([?&]key=)[^&#]*/gi, '$1[redacted]');

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (req: FastifyRequest) => ({ method: req.method, url: redactQueryKeys(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }),
    },
    ...(stream ? { stream } : {}),
  };
}
