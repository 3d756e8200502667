// POST /v1/mcp: the MCP endpoint (Streamable HTTP, stateless, JSON responses). GET and DELETE
// (the SSE stream and session end of stateful servers) answer 405 like any unknown method.
// The credential is a bearer token as on /query, or an OAuth access token Mallard issued
// (features/oauth). A 401 names the protected-resource metadata (RFC 9728) in
// `WWW-Authenticate`, so an OAuth client finds where to sign in; a client with a key ignores it.
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-types.ts';
import { contextOf } from '../http/context.ts';
import { QUERY_ACCESS } from '../http/query.ts';
import type { RouteDocs } from '../http/openapi.ts';
import { SiteIdQuery } from '../domain/schema-parts.ts';
import { answerOverHttp, openSession, refuseForeignOrigin, type HttpAnswer } from './http-exchange.ts';
import { callBudget } from './rate-budget.ts';

const JsonRpcMessage = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  method: Type.Optional(Type.String()),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The method\'s parameters, as the Model Context Protocol defines them' })),
}, { additionalProperties: true, description: 'A JSON-RPC 2.0 message of the Model Context Protocol' });

const JsonRpcBody = Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)], {
  examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
});
// The transport reads the message itself, so the body is documented only; a browser from
// another origin is refused with 403 forbidden.
const MCP_DOCS: RouteDocs = { body: JsonRpcBody, errors: ['forbidden', 'invalid_token'] };
// The answer is the transport's JSON text, sent as it is: documented as JSON-RPC, typed as text.
const JsonRpcAnswer = Type.Unsafe<string>(JSON.parse(JSON.stringify(JsonRpcBody)));

/**
 * The endpoint takes bodies up to 1 MiB, so that a tool call whose arguments pass the 64 KiB
 * limit reaches the tool and is answered as a tool error the assistant can act on (tool-kit.ts);
 * a larger body is refused as any request is (413).
 */
export const MCP_BODY_LIMIT = 1024 * 1024;

/** The protected-resource metadata of this endpoint (RFC 9728, http/routes/oauth.ts). */
export const MCP_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/v1/mcp';

export async function mcpRoutes(app: App) {
  app.post('/mcp', {
    bodyLimit: MCP_BODY_LIMIT,
    // Its own budget: tool calls per credential (rate-budget.ts), not the query surface's requests.
    config: { access: { ...QUERY_ACCESS, ownRateLimit: true, oauth: true }, docs: MCP_DOCS },
    schema: {
      tags: ['mcp'],
      summary: 'Model Context Protocol over Streamable HTTP (stateless, JSON responses): Mallard\'s tools, resources and prompts for AI assistants',
      description: 'Send `Accept: application/json, text/event-stream`. `site_id` sets the site tools use when they are not given one (for org-level credentials). Browsers from an origin other than this server\'s are refused (403 forbidden). See docs/mcp.md.',
      querystring: SiteIdQuery,
      response: {
        // One success status per operation in the document; the 202 is said in words.
        200: { description: 'The JSON-RPC response (or an array of them). A request holding only notifications or responses is answered 202 with no body.', content: { 'application/json': { schema: JsonRpcAnswer } } },
      },
    },
    onError: async (request, reply, error) => {
      const { status, code } = error as { status?: number; code?: string };
      if (status !== 401) return;
      const metadata = `${request.server.services.config.publicUrl}${MCP_RESOURCE_METADATA_PATH}`;
      // An expired or revoked OAuth token says so, so the client refreshes it or signs in again.
      reply.header('www-authenticate', `Bearer resource_metadata="${metadata}"${code === 'invalid_token' ? ', error="invalid_token"' : ''}`);
    },
  }, async (request, reply) => {
    const { config, limiter } = request.server.services;
    refuseForeignOrigin(request.headers.origin, config.publicUrl);
    const ctx = contextOf(request);
    const session = { ...await openSession(ctx, request.query.site_id, config.publicUrl), spend: callBudget(limiter, config.rateLimits.mcp, ctx.auth, ctx.now) };
    return send(reply, await answerOverHttp(session, `${config.publicUrl}${request.url}`, request.headers, request.body));
  });
}

/** The transport's answer as it is: 200 with its JSON text, or 202 with no body. */
function send(reply: FastifyReply, answer: HttpAnswer) {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  return answer.body === '' ? reply.send() : reply.send(answer.body);
}
