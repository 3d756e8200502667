// POST /v1/mcp: the MCP endpoint (Streamable HTTP, stateless, JSON responses). GET and DELETE
// (the SSE stream and session end of stateful servers) answer 405 like any unknown method.
// The credential is a bearer token as on /query; a 401 says `WWW-Authenticate: Bearer` and
// nothing about OAuth, so clients keep using the static header they were given.
import { Type } from '@sinclair/typebox';
import type { App } from '../http/app-types.ts';
import { contextOf } from '../http/context.ts';
import { QUERY_ACCESS } from '../http/query.ts';
import type { RouteDocs } from '../http/openapi.ts';
import { SiteIdQuery } from '../domain/schema-parts.ts';
import { answerOverHttp, openSession, refuseForeignOrigin } from './http-exchange.ts';

const JsonRpcMessage = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  method: Type.Optional(Type.String()),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: true, description: 'A JSON-RPC 2.0 message of the Model Context Protocol' });

const JsonRpcBody = Type.Union([JsonRpcMessage, Type.Array(JsonRpcMessage)]);
// The transport reads the message itself, so the body is documented only; a browser from
// another origin is refused with 403 forbidden.
const MCP_DOCS: RouteDocs = { body: JsonRpcBody, errors: ['forbidden'] };
// The answer is the transport's JSON text, sent as it is: documented as JSON-RPC, typed as text.
const JsonRpcAnswer = Type.Unsafe<string>(JSON.parse(JSON.stringify(JsonRpcBody)));

export async function mcpRoutes(app: App) {
  app.post('/mcp', {
    config: { access: QUERY_ACCESS, docs: MCP_DOCS },
    schema: {
      tags: ['mcp'],
      summary: 'Model Context Protocol over Streamable HTTP (stateless, JSON responses): Mallard\'s tools, resources and prompts for AI assistants',
      description: 'Send `Accept: application/json, text/event-stream`. `site_id` sets the site tools use when they are not given one (for org-level credentials). Browsers from an origin other than this server\'s are refused (403 forbidden). See docs/mcp.md.',
      querystring: SiteIdQuery,
      response: {
        200: { description: 'The JSON-RPC response (or an array of them)', content: { 'application/json': { schema: JsonRpcAnswer } } },
        202: { description: 'Accepted: the request held only notifications or responses (no body)', content: { 'application/json': { schema: Type.Unsafe<undefined>({ type: 'null' }) } } },
      },
    },
    onError: async (_request, reply, error) => {
      if ((error as { status?: number }).status === 401) reply.header('www-authenticate', 'Bearer');
    },
  }, async (request, reply) => {
    const { config } = request.server.services;
    refuseForeignOrigin(request.headers.origin, config.publicUrl);
    const session = await openSession(contextOf(request), request.query.site_id);
    const answer = await answerOverHttp(session, `${config.publicUrl}${request.url}`, request.headers, request.body);
    reply.code(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    return reply.send(answer.body === '' ? undefined : answer.body);
  });
}
