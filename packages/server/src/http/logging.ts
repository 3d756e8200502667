// The request logger's settings, shared by the server and the tests that read its lines.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Query parameters whose values never reach a log line: a credential (`/v1/sdk-config?key=`,
 * the authorization code and state an SSO callback carries) and what names a person (the
 * privacy routes' subject, an issue list's assignee filter, the address an SSO sign-in starts from).
 */
export const REDACTED_QUERY_PARAMS: readonly string[] = ['key', 'visitor_id', 'user_ref', 'assigned_to', 'code', 'state', 'email'];
const redactedNames = new Set(REDACTED_QUERY_PARAMS);

// Named as the query parser reads it, so `visitor%5Fid=` is redacted like `visitor_id=`.
const paramName = (raw: string) => {
  try { return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase(); } catch { return raw.toLowerCase(); }
};

/** The URL with the values of REDACTED_QUERY_PARAMS replaced by `[redacted]`. */
export function redactQueryKeys(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url.slice(start + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && redactedNames.has(paramName(name)) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, start + 1)}${pairs.join('&')}`;
}

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
