// `mallard mcp`: MCP over stdio for assistants that launch a command. It bridges each JSON-RPC
// message from stdin to a Mallard's POST /v1/mcp (local or remote) and writes the answers to
// stdout, so stdout carries only JSON-RPC; every other line goes to stderr. A bad key, a site
// the key may not use or an unreachable server is found before the first message, with a clear
// line on stderr and a non-zero exit.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MALLARD_URL = 'http://127.0.0.1:8787';

/** A reason the bridge cannot start, said in one line. */
export class BridgeError extends Error {}

export interface BridgeOptions {
  url: string;
  key: string;
  siteId?: string;
  log: (line: string) => void;
  stdin?: Readable;
  stdout?: Writable;
}

/** The bridge's settings from MALLARD_URL, MALLARD_MCP_KEY and MALLARD_SITE_ID. */
export function bridgeSettings(env: NodeJS.ProcessEnv): { url: string; key: string; siteId?: string } {
  const url = (env.MALLARD_URL || DEFAULT_MALLARD_URL).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BridgeError(`MALLARD_URL is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new BridgeError(`MALLARD_URL must be an http or https URL, got ${url}`);
  const key = env.MALLARD_MCP_KEY?.trim();
  if (!key) throw new BridgeError('MALLARD_MCP_KEY is not set: give it an MCP key (svc_mcp_...), a secret key with mcp:read or query:read, or a user token');
  const siteId = env.MALLARD_SITE_ID?.trim() || undefined;
  return { url, key, siteId };
}

function endpointOf(url: string, siteId?: string): URL {
  const endpoint = new URL(`${url}/v1/mcp`);
  if (siteId) endpoint.searchParams.set('site_id', siteId);
  return endpoint;
}

/** One ping through the endpoint: proves the server answers and takes the key (and the site). */
async function probe(endpoint: URL, key: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new BridgeError(`cannot reach Mallard at ${endpoint.origin} (${cause?.code ?? cause?.message ?? (error as Error).message}); is it running, and is MALLARD_URL right?`);
  }
  if (response.ok) return;
  const text = await response.text();
  let error: { code?: string; message?: string } | undefined;
  try {
    error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
  } catch {
    // Not Mallard's envelope: say what came back.
  }
  const said = error?.code ? `${error.code}: ${error.message}` : `HTTP ${response.status} ${text.slice(0, 200)}`;
  if (response.status === 401) throw new BridgeError(`Mallard at ${endpoint.origin} refused MALLARD_MCP_KEY (${said})`);
  if (response.status === 403) throw new BridgeError(`MALLARD_MCP_KEY may not use MCP${endpoint.searchParams.has('site_id') ? ' on MALLARD_SITE_ID' : ''} (${said})`);
  if (response.status === 404 && endpoint.searchParams.has('site_id')) throw new BridgeError(`MALLARD_SITE_ID is not a site of this credential's org (${said})`);
  throw new BridgeError(`Mallard at ${endpoint.origin} answered ${said}`);
}

/** Runs until stdin closes and every message in flight has its answer. */
export async function runBridge(options: BridgeOptions): Promise<void> {
  const endpoint = endpointOf(options.url, options.siteId);
  await probe(endpoint, options.key);
  options.log(`mallard mcp: bridging stdio to ${endpoint.origin}${endpoint.pathname}${options.siteId ? ` (site ${options.siteId})` : ''}`);

  const stdin = options.stdin ?? process.stdin;
  const local = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${options.key}` } } });
  const initializeIds = new Set<string | number>();
  const inFlight = new Set<Promise<void>>();

  remote.onmessage = (message) => {
    // Later requests carry the protocol version the server chose, as a client's own transport would.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id) && typeof message.result.protocolVersion === 'string') {
      remote.setProtocolVersion(message.result.protocolVersion);
    }
    void local.send(message);
  };
  let closing = false;
  // Closing the transport aborts what it still holds open; that is the end, not an error.
  remote.onerror = (error) => { if (!closing) options.log(`mallard mcp: ${error.message}`); };
  local.onerror = (error) => options.log(`mallard mcp: unreadable input: ${error.message}`);
  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    const sent = remote.send(message).catch(async (error: Error) => {
      options.log(`mallard mcp: ${error.message}`);
      // A request must get an answer, or the assistant waits forever.
      if (isJSONRPCRequest(message)) {
        await local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `Mallard did not answer: ${error.message}` } });
      }
    });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };

  await remote.start();
  await local.start();
  await new Promise<void>((resolve) => stdin.once('end', resolve));
  await Promise.all(inFlight);
  closing = true;
  await local.close();
  await remote.close();
}
