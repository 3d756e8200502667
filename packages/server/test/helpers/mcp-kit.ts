// Shared by the MCP suites: a harness that listens on a real port, the SDK's own client over
// Streamable HTTP or over stdio (`mallard mcp` spawned as a process), and the route calls the
// tools are compared with.
import { resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearer, type Harness } from './harness.ts';

export const BIN = resolve(import.meta.dirname, '../../bin/mallard.js');

export type TransportName = 'http' | 'stdio';

/** The harness's app listening on a free port; its base URL (no /v1). */
export async function listen(h: Harness): Promise<string> {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}

export interface Connected {
  client: Client;
  /** Lines the bridge wrote to stderr, and anything on its stdout that was not JSON-RPC. */
  stderr: () => string;
  protocolErrors: Error[];
  close(): Promise<void>;
}

/** The SDK's client over the chosen transport, connected (initialize done). */
export async function connect(transport: TransportName, base: string, key: string, siteId?: string): Promise<Connected> {
  const client = new Client({ name: 'mallard-test', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  let stderr = '';
  if (transport === 'http') {
    const url = new URL(`${base}/v1/mcp`);
    if (siteId) url.searchParams.set('site_id', siteId);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(key) } }));
  } else {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', MALLARD_URL: base, MALLARD_MCP_KEY: key, ...(siteId ? { MALLARD_SITE_ID: siteId } : {}) },
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk) => { stderr += chunk; });
    await client.connect(stdio);
    // A line on stdout that is not JSON-RPC shows up as a transport error.
    stdio.onerror = (error) => { protocolErrors.push(error); };
  }
  return { client, stderr: () => stderr, protocolErrors, close: () => client.close() };
}

/** A tool call that must succeed; its structured content. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args }) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  expect((result.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  return { data: result.structuredContent as Record<string, any>, text: (result.content[0] as { text: string }).text };
}

/** A tool call that must fail as a tool error; the API's code it carries, and its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args }) as CallToolResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result.content)}`).toBe(true);
  const text = (result.content[0] as { text: string }).text;
  const meta = (result._meta as Record<string, { code: string; details?: Record<string, unknown> }>)['mallard/error'];
  expect(text.startsWith(`${meta.code} (`)).toBe(true);
  return { code: meta.code, details: meta.details, text };
}

/** An answer without the dashboard links the tools add beside ids (and whoami's sites): what the route returns. */
export function withoutLinks(value: unknown): any {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'dashboard_url').map(([k, v]) => [k, withoutLinks(v)]));
}

/** GET a route with a key: its `data` (must be 200). */
export async function routeData(h: Harness, key: string, url: string) {
  const res = await h.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json().data;
}
