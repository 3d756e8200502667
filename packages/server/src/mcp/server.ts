// The MCP server of one exchange: the tools the caller may use, the resources, the prompts and
// completion, all answering from the same services as the HTTP routes. Made anew for each
// request (the HTTP endpoint is stateless), so it holds nothing between calls.
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, CompleteRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema,
  ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../domain/errors.ts';
import { complete } from './completions.ts';
import { getPrompt, listPrompts } from './prompts.ts';
import { listResources, listTemplates, readResource } from './resources.ts';
import type { McpSession } from './session.ts';
import { listingFor } from './listing.ts';
import { toolError } from './tool-kit.ts';
import { ALL_TOOLS, toolsFor } from './tools/index.ts';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** MCP's code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS = [
  'Mallard measures where real users of a website get confused (rage clicks, dead clicks, failed forms...) as a score per page from 0 (calm) to 100 (broken), and groups friction into UX issues.',
  'Call get_site_context first.',
  // The arguments many tools share, described here once rather than in every tool's listing (listing.ts, SHARED_ARGUMENTS).
  'Arguments: site_id is a site\'s id from list_sites (an org-level credential passes it to each tool; a site-scoped key leaves it out); page is a path such as /checkout;',
  'from and to bound a window with ISO 8601 instants; offset and limit page through a list; device is desktop, mobile or tablet.',
  'Long lists are cut to keep answers short: an answer\'s next field says what was cut and how to get the rest (detail: "full", or the next offset).',
  'Numbers and verdicts (scores, check_deploy) are computed by Mallard: quote them rather than recomputing them.',
].join(' ');

export function createMcpServer(session: McpSession): Server {
  const server = new Server(
    { name: 'mallard', title: 'Mallard', version },
    { capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} }, instructions: INSTRUCTIONS },
  );
  const tools = toolsFor(session.ctx.auth);

  const siteScoped = session.ctx.auth.site !== null;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => listingFor(t.listing, siteScoped)) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const tool = tools.find((t) => t.name === name);
    if (tool) {
      try {
        await session.spend?.();
      } catch (error) {
        return toolError(error, session);
      }
      return tool.call(session, args);
    }
    if (ALL_TOOLS.some((t) => t.name === name)) {
      const { auth } = session.ctx;
      const denied = auth.keyType === 'oauth'
        ? new AppError('missing_scope', `${name} changes data: this connection was approved to read only (or your role is below member); connect again and choose read and write`, { required: ['manage:write'] })
        : auth.kind === 'key'
        ? new AppError('missing_scope', `${name} changes data: it needs a key with the scope manage:write`, { required: ['manage:write'] })
        : new AppError('insufficient_role', `${name} changes data: it needs the role member or higher`, { required: 'member' });
      return toolError(denied, session);
    }
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}; tools/list names the tools this credential may use`);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => protocolErrors(() => listResources(session)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, (request) => protocolErrors(async () => {
    await session.spend?.();
    return readResource(session, request.params.uri);
  }, RESOURCE_NOT_FOUND));
  server.setRequestHandler(ListPromptsRequestSchema, () => listPrompts());
  server.setRequestHandler(GetPromptRequestSchema, (request) => protocolErrors(async () => {
    await session.spend?.();
    return getPrompt(session, request.params.name, request.params.arguments);
  }));
  server.setRequestHandler(CompleteRequestSchema, (request) => complete(session, request.params));
  return server;
}

/**
 * Resources and prompts have no error result of their own: an AppError becomes a JSON-RPC
 * error whose message starts with the API's code and whose data carries it.
 */
async function protocolErrors<T>(work: () => Promise<T>, notFound: number = ErrorCode.InvalidParams): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const code = error.code === 'not_found' ? notFound : ErrorCode.InvalidParams;
    throw new McpError(code, `${error.code}: ${error.message}`, { code: error.code, status: error.status, ...(error.details ? { details: error.details } : {}) });
  }
}
