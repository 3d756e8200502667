// How a tool is made: the route's input schemas, the service call, the answer's schema and a
// few readable lines. Every tool answers the same way: `structuredContent` is what the route
// returns in `data` (cleaned to its response schema, as the route's serializer does), and an
// error is a tool error carrying the API's code, never a protocol failure.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { CallToolResult, Tool as ToolListing } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import { knownPage } from '../features/pages/known-pages.ts';
import { checkArguments, inputSchemaOf, type InputParts } from './arguments.ts';
import { siteOf, type McpSession } from './session.ts';

type PartInput<T> = T extends TObject ? Static<T> : unknown;
export type ToolInput<P extends InputParts> = PartInput<P['params']> & PartInput<P['query']> & PartInput<P['body']>;

export interface ToolDef<P extends InputParts, D> {
  name: string;
  title: string;
  description: string;
  input: P;
  output: TSchema;
  /** A write tool: listed only for credentials that may write (manage:write, or a member). */
  write?: { idempotent: boolean };
  /** Fields naming a page: an unknown page is 404 with the closest known pages. */
  pageFields?: readonly string[];
  run(ctx: ServiceContext, input: ToolInput<P>): Promise<D>;
  summarize(data: D, input: ToolInput<P>): string;
}

export interface Tool {
  name: string;
  write: boolean;
  listing: ToolListing;
  call(session: McpSession, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** MCP wants an object schema at the root; an intersection of objects is one. */
const objectSchema = (schema: TSchema) => ({ ...JSON.parse(JSON.stringify(schema)), type: 'object' as const });

export function defineTool<P extends InputParts, D>(def: ToolDef<P, D>): Tool {
  const takesSite = 'site_id' in inputSchemaOf(def.input).properties;
  return {
    name: def.name,
    write: def.write !== undefined,
    listing: {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: inputSchemaOf(def.input),
      outputSchema: objectSchema(def.output),
      annotations: {
        title: def.title,
        readOnlyHint: def.write === undefined,
        destructiveHint: false,
        idempotentHint: def.write === undefined || def.write.idempotent,
        openWorldHint: false,
      },
    },
    async call(session, args) {
      try {
        const input = checkArguments(def.input, args);
        if (takesSite) input.site_id = siteOf(session, input.site_id);
        for (const field of def.pageFields ?? []) {
          if (typeof input[field] === 'string') {
            await knownPage({ ctx: session.ctx, input: { site_id: input.site_id as string | undefined, page: input[field], field } });
          }
        }
        // checkArguments validated the input against these very schemas.
        const typed = input as ToolInput<P>;
        const data = await def.run(session.ctx, typed);
        const structured = Value.Clean(def.output, JSON.parse(JSON.stringify(data))) as Record<string, unknown>;
        return { content: [{ type: 'text', text: def.summarize(data, typed) }], structuredContent: structured };
      } catch (error) {
        return toolError(error, session);
      }
    },
  };
}

/** An error as the assistant sees it: the API's code first, then what to do about it. */
export function toolError(error: unknown, session: McpSession): CallToolResult {
  const appError = error instanceof AppError ? error : internalError(error, session);
  return {
    isError: true,
    content: [{ type: 'text', text: `${appError.code} (${appError.status}): ${appError.message}` }],
    _meta: { 'mallard/error': { code: appError.code, status: appError.status, ...(appError.details ? { details: appError.details } : {}) } },
  };
}

function internalError(error: unknown, session: McpSession): AppError {
  session.ctx.log.error({ err: error, reqId: session.ctx.requestId }, 'MCP tool failed');
  return new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the logs');
}
