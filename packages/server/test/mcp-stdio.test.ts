// `mallard mcp` as a process: stdout carries only JSON-RPC, every other line goes to stderr, and
// a credential or server it cannot use is one clear line and a non-zero exit before anything else.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.ts';
import { BIN, listen } from './helpers/mcp-kit.ts';

function run(env: Record<string, string>, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

describe('mallard mcp (stdio)', () => {
  let h: Harness;
  let base: string;
  let org: Awaited<ReturnType<Harness['org']>>;
  let other: Awaited<ReturnType<Harness['org']>>;

  beforeAll(async () => {
    h = await createHarness('sqlite');
    org = await h.org('Stdio');
    other = await h.org('Other');
    base = await listen(h);
  });
  afterAll(async () => h?.close());

  it('bridges JSON-RPC: answers on stdout, one JSON message a line; its own words on stderr; exits 0 when stdin ends', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_trends', arguments: { days: 500 } } },
    ];
    const { code, stdout, stderr } = await run({ MALLARD_URL: base, MALLARD_MCP_KEY: org.keys.mcp }, messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    const byId = Object.fromEntries(lines.map((m) => [m.id, m]));
    expect(byId[1].result.serverInfo.name).toBe('mallard');
    expect(byId[2].result.structuredContent).toMatchObject({ org: { id: org.org_id }, key_type: 'mcp' });
    expect(byId[3].result).toMatchObject({ isError: true, _meta: { 'mallard/error': { code: 'invalid_input', details: { field: 'days' } } } });
    expect(stderr).toContain(`bridging stdio to ${base}/v1/mcp`);
  }, 60_000);

  const refusals: [string, () => Record<string, string>, RegExp][] = [
    ['no key', () => ({ MALLARD_URL: base }), /MALLARD_MCP_KEY is not set/],
    ['a wrong key', () => ({ MALLARD_URL: base, MALLARD_MCP_KEY: 'svc_mcp_wrongwrongwrongwrongwrongwrongwrong1' }), /refused MALLARD_MCP_KEY \(invalid_key: /],
    ['a publishable key', () => ({ MALLARD_URL: base, MALLARD_MCP_KEY: org.keys.publishable }), /may not use MCP \(missing_scope: /],
    ['another org\'s site', () => ({ MALLARD_URL: base, MALLARD_MCP_KEY: org.keys.mcp, MALLARD_SITE_ID: other.site_id }), /MALLARD_SITE_ID is not a site of this credential's org \(not_found: /],
    ['a URL that is not one', () => ({ MALLARD_URL: 'ftp://example.com', MALLARD_MCP_KEY: org.keys.mcp }), /MALLARD_URL must be an http or https URL/],
  ];
  for (const [what, env, message] of refusals) {
    it(`exits 1 with one line on stderr and nothing on stdout for ${what}`, async () => {
      const { code, stdout, stderr } = await run(env());
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(message);
    }, 30_000);
  }

  it('exits 1 when the server cannot be reached', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await run({ MALLARD_URL: `http://127.0.0.1:${port}`, MALLARD_MCP_KEY: org.keys.mcp });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`cannot reach Mallard at http://127.0.0.1:${port} \\(ECONNREFUSED\\)`));
  }, 30_000);
});
