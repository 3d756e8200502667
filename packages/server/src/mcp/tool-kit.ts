// How a tool is made: from a catalog operation (domain/operation.ts), which gives its input
// schemas, access, answer schema and service call; the tool adds only the face's words: its
// name, title, description, argument notes, dashboard links and a few readable lines. Every
// tool answers the same way: `structuredContent` is what the route returns in `data` (cleaned
// to the operation's output schema, as the route's serializer does), and an error is a tool
// error carrying the API's code, never a protocol failure.
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { CallToolResult, Tool as ToolListing } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../domain/errors.ts';
import { runOperation, type InputParts, type Operation, type OperationInput } from '../domain/operation.ts';
import { knownPage } from '../features/pages/known-pages.ts';
import { answerArgs, compactAnswer } from './answer-size.ts';
import { checkArguments, inputSchemaOf } from './arguments.ts';
import { annotationsOf, listedAnswer, listedArguments, type ArgumentNotes } from './listing.ts';
import { addLinks, linkText, withLinkFields, type LinkSpec } from './dashboard-links.ts';
import { siteOf, type McpSession } from './session.ts';

export type ToolInput<P extends InputParts> = OperationInput<P>;

export interface ToolDef<P extends InputParts, D> {
  name: string;
  title: string;
  description: string;
  /** The catalog operation the tool calls: its input, output, access and run are the tool's. */
  operation: Operation<P, D>;
  /** Fields naming a page: an unknown page is 404 with the closest known pages. */
  pageFields?: readonly string[];
  /** Where issue, session, alert and deploy ids sit in the answer: each gets a dashboard_url beside it. */
  links?: readonly LinkSpec[];
  /** The listing's words for an argument where the route's are long or say what the tool's description says (null: none). */
  argumentNotes?: ArgumentNotes;
  /** The answer's fields the listing names (default: all): a write's record that a read tool lists, a record's headline fields. */
  listedFields?: readonly string[];
  summarize(data: D, input: ToolInput<P>): string;
}

export interface Tool {
  name: string;
  /** The catalog operation it calls; its access decides who gets the tool (tools/index.ts). */
  operation: Operation<any, any>;
  write: boolean;
  listing: ToolListing;
  call(session: McpSession, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** MCP wants an object schema at the root; an intersection of objects is one. */
const objectSchema = (schema: TSchema) => ({ ...JSON.parse(JSON.stringify(schema)), type: 'object' as const });

export function defineTool<P extends InputParts, D>(def: ToolDef<P, D>): Tool {
  const op = def.operation;
  const takesSite = 'site_id' in inputSchemaOf(op.input).properties;
  const inputSchema = listedArguments(def.name, inputSchemaOf(op.input), def.argumentNotes);
  return {
    name: def.name,
    operation: op,
    write: op.write !== undefined,
    listing: {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema,
      outputSchema: listedAnswer(withLinkFields(def.name, objectSchema(op.output), def.links ?? []), Object.keys(inputSchema.properties), def.listedFields),
      annotations: annotationsOf(op.write),
    },
    async call(session, args) {
      try {
        refuseOversized(args);
        const { args: routeArgs, detail } = answerArgs(def.name, args);
        const input = checkArguments(op.input, routeArgs);
        if (takesSite) input.site_id = siteOf(session, input.site_id);
        // checkArguments validated the input against these very schemas.
        const typed = input as ToolInput<P>;
        // The page check shares the operation's memo: the site and its settings are read once per call.
        const data = await runOperation(op, session.ctx, typed, async (ctx) => {
          for (const field of def.pageFields ?? []) {
            if (typeof input[field] === 'string') {
              await knownPage({ ctx, input: { site_id: input.site_id as string | undefined, page: input[field], field } });
            }
          }
        });
        refuseOffsetPastEnd(input, data);
        const structured = compactAnswer(def.name, Value.Clean(op.output, JSON.parse(JSON.stringify(data))) as Record<string, unknown>, detail, input.limit);
        const links = addLinks(structured, def.links ?? [], session.publicUrl);
        return { content: [{ type: 'text', text: linkText(def.summarize(data, typed), links) }], structuredContent: structured };
      } catch (error) {
        return toolError(error, session);
      }
    },
  };
}

/** The largest a call's arguments may be (as JSON): 64 KiB, the API's own request body limit. */
export const ARGUMENTS_LIMIT = 64 * 1024;

/** Arguments over the limit are a tool error the assistant can act on, not a refused request. */
function refuseOversized(args: Record<string, unknown>): void {
  const size = Buffer.byteLength(JSON.stringify(args));
  if (size > ARGUMENTS_LIMIT) {
    throw new AppError('payload_too_large', `The arguments are ${size} bytes; at most ${ARGUMENTS_LIMIT} bytes (64 KiB) are taken: send less`, { limit: ARGUMENTS_LIMIT, size });
  }
}

/** A page of a list asked for past its end: say so with the total, rather than an empty page. */
function refuseOffsetPastEnd(input: Record<string, unknown>, data: unknown): void {
  const offset = input.offset;
  const { total, total_capped: capped } = (data as { total?: unknown; total_capped?: unknown } | null) ?? {};
  // A capped total (the sessions search) is not the end: pages go on past it.
  if (typeof offset === 'number' && offset > 0 && typeof total === 'number' && capped !== true && offset >= total) {
    throw new AppError('invalid_input', `offset ${offset} is past the end (total ${total}); use an offset below ${total}`, { field: 'offset', reason: `past the end (total ${total})`, total });
  }
}

/** Seconds until a refusal with a reset time may be retried (at least 1). */
function retryAfterOf(appError: AppError, now: number): number | undefined {
  const details = appError.details ?? {};
  if (typeof details.retry_after === 'number') return details.retry_after;
  if (typeof details.reset_at === 'string') return Math.max(1, Math.ceil((Date.parse(details.reset_at) - now) / 1000));
  return undefined;
}

/**
 * An error as the assistant sees it: the API's code first, then what to do about it; a refusal
 * that passes with time (rate_limited) says after how many seconds, in the text and in `_meta`.
 */
export function toolError(error: unknown, session: McpSession): CallToolResult {
  const appError = error instanceof AppError ? error : internalError(error, session);
  const retryAfter = retryAfterOf(appError, session.ctx.now);
  const retry = retryAfter === undefined || appError.message.includes(`${retryAfter} seconds`) ? '' : ` (retry_after ${retryAfter} seconds)`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${appError.code} (${appError.status}): ${appError.message}${retry}` }],
    _meta: {
      'mallard/error': {
        code: appError.code, status: appError.status,
        ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
        ...(appError.details ? { details: appError.details } : {}),
      },
    },
  };
}

function internalError(error: unknown, session: McpSession): AppError {
  session.ctx.log.error({ err: error, reqId: session.ctx.requestId }, 'MCP tool failed');
  return new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the logs');
}
