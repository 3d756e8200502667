// One MCP exchange over Streamable HTTP, stateless: a new server and transport for each POST,
// answering in JSON (no SSE stream, no session id), so API processes behind a load balancer
// need no sticky sessions. Browsers from another origin are refused (DNS rebinding), and a
// default site for the exchange is checked before anything runs.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ServiceContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import { siteInScope } from '../domain/tenancy.ts';
import { createMcpServer } from './server.ts';
import type { McpSession } from './session.ts';

/** The headers of the HTTP request the transport reads. */
const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

/** A success: 200 with the JSON-RPC answer, or 202 when the request held only notifications. */
export interface HttpAnswer { status: 200 | 202; headers: Record<string, string>; body: string }

/** The exchange's session: the caller, and its default site when `?site_id=` names one it may use. */
export async function openSession(ctx: ServiceContext, siteId: string | undefined, publicUrl: string): Promise<McpSession> {
  if (siteId === undefined || siteId === '') return { ctx, publicUrl };
  const site = await siteInScope(ctx, siteId);
  return { ctx, siteId: site.id, publicUrl };
}

/**
 * A browser sends Origin; only the server's own public origin may call. A page elsewhere
 * (including one whose name was rebound to this address) is refused; clients that are not
 * browsers send no Origin and pass.
 */
export function refuseForeignOrigin(origin: string | undefined, publicUrl: string): void {
  if (origin === undefined) return;
  if (origin !== new URL(publicUrl).origin) {
    throw new AppError('forbidden', `Browser requests from ${origin} may not use the MCP endpoint; only ${new URL(publicUrl).origin} may`);
  }
}

export async function answerOverHttp(session: McpSession, url: string, headers: Record<string, string | string[] | undefined>, body: unknown): Promise<HttpAnswer> {
  const forwarded = new Headers();
  for (const name of FORWARDED) {
    const value = headers[name];
    if (value !== undefined) forwarded.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const server = createMcpServer(session);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(new Request(url, { method: 'POST', headers: forwarded }), { parsedBody: body });
    const text = await response.text();
    if (response.status === 200 || response.status === 202) return { status: response.status, headers: Object.fromEntries(response.headers), body: text };
    throw transportRefusal(response.status, text);
  } finally {
    await server.close();
  }
}

/** The transport's own refusals (a bad Accept header, a body that is not JSON-RPC) in the API's envelope. */
function transportRefusal(status: number, text: string): AppError {
  let reason = text;
  try {
    reason = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    // Not JSON: keep the text as it is.
  }
  if (status === 406) return new AppError('invalid_input', 'Send Accept: application/json, text/event-stream', { field: 'accept', reason });
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large');
  if (status === 415) return new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  if (status >= 400 && status < 500) return new AppError('invalid_input', `The body is not a valid MCP message: ${reason}`, { field: 'body', reason });
  return new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the logs');
}
