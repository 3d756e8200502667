// The published MCP Inspector CLI (@modelcontextprotocol/inspector-cli, run non-interactively)
// against both transports: Streamable HTTP with a bearer header, and `mallard mcp` launched as
// a command. What it prints is what any client would see.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, T0, type Harness } from './helpers/harness.ts';
import { BIN, listen, withoutLinks } from './helpers/mcp-kit.ts';
import { cycle, ingest, intervalTraffic, INTERVAL } from './helpers/alert-traffic.ts';

const INSPECTOR = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build/index.js');
const exec = promisify(execFile);

describe('MCP Inspector CLI', () => {
  let h: Harness;
  let base: string;
  let org: Awaited<ReturnType<Harness['org']>>;

  beforeAll(async () => {
    h = await createHarness('sqlite', { raisedLimits: true });
    org = await h.org('Inspected');
    const at = T0 - INTERVAL;
    // 10 visitors, one of them rage-clicking 4 times: 4 x 25 / 10 = 10 per user, 1 of 10 affected
    // (10 %: x 1.5) = raw 15, score 100 x (1 - e^-1.5) = 77.7.
    await ingest(h, org.keys.secret, intervalTraffic(at - INTERVAL, [{ page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', count: 4 }] }]));
    await cycle(h, org.site_id, at);
    base = await listen(h);
  });
  afterAll(async () => h?.close());

  const transports = {
    http: () => ({ target: [`${base}/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${org.keys.mcp}`], env: {} }),
    stdio: () => ({ target: [process.execPath, BIN, 'mcp', '--transport', 'stdio'], env: { MALLARD_URL: base, MALLARD_MCP_KEY: org.keys.mcp } }),
  };

  for (const [name, transport] of Object.entries(transports)) {
    describe(`over ${name}`, () => {
      const inspect = async (...args: string[]) => {
        const { target, env } = transport();
        // 1.0.3 looks for its package.json at ../package.json from the working directory.
        const { stdout } = await exec(process.execPath, [INSPECTOR, ...target, ...args], { cwd: dirname(INSPECTOR), env: { PATH: process.env.PATH, ...env }, timeout: 60_000 });
        return JSON.parse(stdout);
      };

      it('tools/list', async () => {
        const { tools } = await inspect('--method', 'tools/list');
        expect(tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['get_site_context', 'get_page', 'check_deploy', 'query_raw']));
        expect(tools.map((t: { name: string }) => t.name)).not.toContain('update_issue');
      }, 60_000);

      it('tools/call', async () => {
        // detail=full: the whole answer, as the route returns it (the default cuts long lists); dashboard links aside.
        const result = await inspect('--method', 'tools/call', '--tool-name', 'get_page', '--tool-arg', 'page=/checkout', '--tool-arg', 'detail=full');
        const route = (await h.app.inject({ method: 'GET', url: '/v1/query/page?page=/checkout', headers: bearer(org.keys.mcp) })).json().data;
        expect(withoutLinks(result.structuredContent)).toEqual(route);
        expect(result.content[0].text).toContain('/checkout: score 77.7 (flustered)');
      }, 60_000);

      it('resources/read', async () => {
        const result = await inspect('--method', 'resources/read', '--uri', 'mallard://context');
        expect(JSON.parse(result.contents[0].text)).toMatchObject({ site_id: org.site_id, top_pages: [{ page: '/checkout', score: 77.7 }] });
      }, 60_000);

      it('prompts/get', async () => {
        const result = await inspect('--method', 'prompts/get', '--prompt-name', 'diagnose_page', '--prompt-args', 'page_path=/checkout');
        expect(result.messages[0].content.text).toContain('/checkout: score 77.7 (flustered)');
        expect(result.messages[0].content.text).toContain('button.pay');
      }, 60_000);
    });
  }
});
