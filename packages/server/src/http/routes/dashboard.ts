// The dashboard at /app/: the entry page (revalidated on every load, so a new build is picked
// up at once) and its content-hashed assets (immutable, cached for a year), each with an ETag
// and gzip, and a strict Content-Security-Policy on every response. The app itself calls only
// the public API with the signed-in user's token.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { AppError } from '../../domain/errors.ts';
import { loadDashboard, type Dashboard, type DashboardFile } from '../../features/dashboard/build.ts';

export const DASHBOARD_PATH = '/app/';
export const ENTRY_CACHE = 'no-cache';
export const ASSET_CACHE = 'public, max-age=31536000, immutable';
/**
 * Same origin only, no inline script or style, no framing. One exception: images and media may
 * come from any https: origin (and images from data:), so a recording of a site that allows
 * media (`clips.allow_media`) shows its images and video, which are addresses on the site's
 * origin, in the snapshot frame and the player. Those frames are sandboxed without scripts;
 * scripts, styles, connections and frames stay same-origin (docs/dashboard.md, "Security").
 */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' https: data:", "media-src 'self' https:", "font-src 'self'", "connect-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** A browser opening `/` (it asks for HTML) goes to the dashboard; API clients keep the JSON 404. */
export function wantsDashboard(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  return path === '/' && (request.method === 'GET' || request.method === 'HEAD') && /\btext\/html\b/i.test(String(request.headers.accept ?? ''));
}

export function redirectToDashboard(reply: FastifyReply) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  return reply.header('vary', 'accept').redirect(DASHBOARD_PATH, 302);
}

export async function dashboardRoutes(app: App) {
  // Built once: when the server starts listening, or on the first request of an app that never listens.
  let dashboard: Promise<Dashboard> | null = null;
  const current = () => {
    dashboard ??= loadDashboard().catch((err: Error) => {
      dashboard = null;
      app.log.error({ err }, 'the dashboard could not be built or found');
      throw new AppError('unavailable', 'The dashboard is not available: build it with `npm run build -w @mallard/dashboard`');
    });
    return dashboard;
  };
  app.addHook('onListen', async () => { await current().catch(() => undefined); });
  app.services.warmUps.push(() => current());
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
  });

  const send = (request: FastifyRequest, reply: FastifyReply, file: DashboardFile, cache: string) => {
    reply.header('cache-control', cache).header('etag', file.etag).header('vary', 'accept-encoding').type(file.type);
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(file.gzipped);
    return reply.send(file.body);
  };

  const access = { surface: 'public' } as const;
  const text = Type.Unsafe<string | Buffer>({ type: 'string' });
  const notModified = Type.Null({ description: 'Not modified: If-None-Match matched the ETag' });

  app.get(DASHBOARD_PATH, {
    config: { access, docs: { errors: ['unavailable'] } },
    schema: {
      tags: ['dashboard'], summary: 'The dashboard (a single-page app; sign in with a user\'s email and password)',
      response: { 200: { description: 'The entry page (gzip-encoded when the client accepts it)', content: { 'text/html': { schema: text } } }, 304: notModified },
    },
  }, async (request, reply) => send(request, reply, (await current()).index, ENTRY_CACHE));

  app.get(`${DASHBOARD_PATH}assets/:file`, {
    config: { access, docs: { errors: ['unavailable'] } },
    schema: {
      tags: ['dashboard'], summary: 'A dashboard asset, named by its content hash (immutable)',
      params: Type.Object({ file: Type.String({ maxLength: 128 }) }),
      response: {
        200: {
          description: 'The script, stylesheet or icon (gzip-encoded when the client accepts it)',
          content: { 'text/javascript': { schema: text }, 'text/css': { schema: text }, 'image/svg+xml': { schema: text } },
        },
        304: notModified,
      },
    },
  }, async (request, reply) => {
    const asset = (await current()).assets.get(request.params.file);
    if (!asset) throw new AppError('not_found', `No dashboard asset ${request.params.file}; the entry page at ${DASHBOARD_PATH} names the current ones`);
    return send(request, reply, asset, ASSET_CACHE);
  });
}
