// GET /sdk.js (short cache, always the current build) and GET /sdk/<version>.js (immutable,
// cached for a year): the browser SDK's script-tag build, which starts itself from the tag's
// data-key and sends to the origin it was loaded from. GET /sdk/clips-<version>.js: the clips
// chunk (issue 28) the script loads only when its config turns clips on, served the same way
// (404 not_found when this build of the SDK has none). Outside /v1 and open to any site.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { AppError } from '../../domain/errors.ts';
import { loadClipsScript, loadSdkScript, type SdkScript } from '../../features/sdk-script/build.ts';

export const SHORT_CACHE = 'public, max-age=300';
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

export async function sdkScriptRoutes(app: App) {
  // Built once, on the first request: servers that never serve the script never build it.
  let script: Promise<SdkScript> | null = null;
  const current = () => {
    script ??= loadSdkScript().catch((err: Error) => {
      script = null;
      app.log.error({ err }, 'the SDK script could not be built or found');
      throw new AppError('unavailable', 'The SDK script is not available: build it with `npm run build -w @mallard/sdk`');
    });
    return script;
  };

  let clips: Promise<SdkScript | null> | null = null;
  const currentClips = () => {
    clips ??= loadClipsScript().catch((err: Error) => {
      clips = null;
      app.log.error({ err }, 'the SDK clips chunk could not be built or read');
      throw new AppError('unavailable', 'The SDK clips chunk is not available: build it with `npm run build -w @mallard/sdk`');
    });
    return clips;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, sdk: SdkScript, cache: string) => {
    reply.header('cache-control', cache)
      .header('etag', sdk.etag)
      .header('vary', 'accept-encoding')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .type('text/javascript; charset=utf-8');
    if (request.headers['if-none-match'] === sdk.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(sdk.gzipped);
    }
    return reply.send(sdk.code);
  };

  const access = { surface: 'public' } as const;
  // What the OpenAPI document shows; the script itself is sent as text or gzip bytes, unserialized.
  const response = {
    200: { description: 'The script (gzip-encoded when the client accepts it)', content: { 'text/javascript': { schema: Type.Unsafe<string | Buffer>({ type: 'string' }) } } },
    304: Type.Null({ description: 'Not modified: If-None-Match matched the ETag' }),
  };

  app.get('/sdk.js', {
    config: { access, docs: { errors: ['unavailable'] } },
    schema: { tags: ['sdk'], summary: 'The SDK script-tag build, always current (cached 5 minutes)', response },
  }, async (request, reply) => send(request, reply, await current(), SHORT_CACHE));

  app.get('/sdk/:file', {
    config: { access, docs: { errors: ['unavailable'] } },
    schema: {
      tags: ['sdk'], summary: 'One version of the SDK script-tag build, e.g. /sdk/0.1.0.js, or of its clips chunk, /sdk/clips-0.1.0.js (immutable)',
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      response,
    },
  }, async (request, reply) => {
    const { file } = request.params;
    if (file.startsWith('clips-')) {
      const chunk = await currentClips();
      if (!chunk) throw new AppError('not_found', 'This server\'s SDK build has no clips chunk');
      if (file !== `clips-${chunk.version}.js`) throw new AppError('not_found', `This server serves the clips chunk of SDK version ${chunk.version} only, at /sdk/clips-${chunk.version}.js`);
      return send(request, reply, chunk, IMMUTABLE_CACHE);
    }
    const sdk = await current();
    if (file !== `${sdk.version}.js`) throw new AppError('not_found', `This server serves SDK version ${sdk.version} only, at /sdk/${sdk.version}.js`);
    return send(request, reply, sdk, IMMUTABLE_CACHE);
  });
}
