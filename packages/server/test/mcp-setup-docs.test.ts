// The set-up docs/mcp.md prints ("Connecting with a key", "Trying it") and the README repeats,
// run as printed with the placeholders replaced (the server, the key, the checkout): the Claude
// Desktop, VS Code and Cursor snippets and the commands of the `claude mcp add` lines connect
// the SDK's client and list the tools; the inspector commands run from the checkout's root and
// answer. Claude Code itself is not installed here, so its lines are checked for the argument
// order it needs (the name before --env) and their URL, header, command and environment used.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHarness, T0, type Harness } from './helpers/harness.ts';
import { listen } from './helpers/mcp-kit.ts';
import { cycle, ingest, intervalTraffic, INTERVAL } from './helpers/alert-traffic.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const exec = promisify(execFile);
const PRINTED_SERVER = 'http://127.0.0.1:8787';

/** The text of a `## ` section (to the next one). */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** The fenced blocks of one language in a text. */
const fenced = (text: string, lang: string) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

/** A command line split as a shell would split these (double quotes, no escapes). */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);

const doc = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const setUp = section(doc, 'Connecting with a key');
const trying = section(doc, 'Trying it');
const readmeMcp = section(readme, 'AI assistants (MCP)');

describe('MCP set-up as the docs print it', () => {
  let h: Harness;
  let base: string;
  let key: string;
  /** A printed snippet with its placeholders replaced. */
  let fill: (text: string) => string;

  beforeAll(async () => {
    h = await createHarness('sqlite', { raisedLimits: true });
    const org = await h.org('Docs');
    // A scored /checkout, which the printed tools/call and prompts/get ask about.
    await ingest(h, org.keys.secret, intervalTraffic(T0 - 2 * INTERVAL, [{ page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', count: 4 }] }]));
    await cycle(h, org.site_id, T0 - INTERVAL);
    base = await listen(h);
    key = org.keys.mcp;
    fill = (text) => text.replaceAll(PRINTED_SERVER, base).replaceAll('svc_mcp_...', key).replaceAll('/path/to/mallard', ROOT).replaceAll('${input:mallard-key}', key);
  });
  afterAll(async () => h?.close());

  /** The tool names a client connected this way is given. */
  async function toolNames(transport: StreamableHTTPClientTransport | StdioClientTransport): Promise<string[]> {
    const client = new Client({ name: 'docs-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  }
  const http = (url: string, headers: Record<string, string>) => new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const stdio = (command: string, args: string[], env: Record<string, string>) => new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', ...env }, cwd: '/' });

  it('prints the same set-up in the README as in docs/mcp.md', () => {
    const lines = (text: string) => fenced(text, 'sh').join('\n').split('\n').filter((l) => l.startsWith('claude mcp add') || l.includes('mcp:inspect'));
    const documented = lines(setUp + trying);
    expect(documented.filter((l) => l.startsWith('claude mcp add'))).toHaveLength(2);
    for (const line of lines(readmeMcp)) expect(documented, 'a README command docs/mcp.md does not print').toContain(line);
    for (const json of fenced(readmeMcp, 'json')) expect(fenced(setUp, 'json'), 'a README snippet docs/mcp.md does not print').toContain(json);
  });

  it('connects with every JSON snippet (Claude Desktop, VS Code, Cursor)', async () => {
    const snippets = [...fenced(setUp, 'json'), ...fenced(readmeMcp, 'json')].map((json) => JSON.parse(fill(json)));
    expect(snippets.length).toBeGreaterThanOrEqual(3);
    let launched = 0;
    for (const snippet of snippets) {
      const entry = (snippet.mcpServers ?? snippet.servers).mallard as { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> };
      if (entry.command) launched++;
      const names = entry.command ? await toolNames(stdio(entry.command, entry.args ?? [], entry.env ?? {})) : await toolNames(http(entry.url!, entry.headers ?? {}));
      expect(names, JSON.stringify(entry)).toEqual(expect.arrayContaining(['get_site_context', 'check_deploy']));
    }
    // At least one snippet launches `mallard mcp` (the desktop client's).
    expect(launched).toBeGreaterThan(0);
  }, 120_000);

  it('puts the server name before --env in the claude mcp add lines, and their URL, header, command and environment connect', async () => {
    const lines = fenced(setUp, 'sh').join('\n').split('\n').filter((l) => l.startsWith('claude mcp add'));
    for (const line of lines.map(fill)) {
      const [, , , ...rest] = words(line);
      const dashes = rest.indexOf('--');
      const options = dashes === -1 ? rest : rest.slice(0, dashes);
      const transport = options[options.indexOf('--transport') + 1];
      const name = options.find((w, i) => !w.startsWith('-') && !options[i - 1]?.startsWith('-'));
      expect(name, line).toBe('mallard');
      if (transport === 'http') {
        const url = options[options.indexOf('mallard') + 1];
        const [header, value] = options[options.indexOf('--header') + 1].split(': ');
        expect(await toolNames(http(url, { [header]: value }))).toContain('get_site_context');
      } else {
        expect(transport).toBe('stdio');
        // Claude Code's --env takes several values: the name must come before the first one.
        expect(options.indexOf('mallard'), line).toBeLessThan(options.indexOf('--env'));
        const env = Object.fromEntries(options.filter((_, i) => options[i - 1] === '--env').map((pair) => pair.split('=')));
        const [command, ...args] = rest.slice(dashes + 1);
        expect(await toolNames(stdio(command, args, env))).toContain('get_site_context');
      }
    }
  }, 120_000);

  it('runs the inspector commands of "Trying it" from the checkout\'s root', async () => {
    const commands = fenced(trying, 'sh').join('\n').split('\n').filter((l) => l.includes('mcp:inspect'));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    const answers: Record<string, unknown>[] = [];
    for (const command of commands.map(fill)) {
      const { stdout } = await exec('sh', ['-c', command], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME }, timeout: 60_000 });
      answers.push(JSON.parse(stdout));
    }
    const [list, call, prompt] = answers as [{ tools: { name: string }[] }, { content: { text: string }[]; isError?: boolean }, { messages: { content: { text: string } }[] }];
    expect(list.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_site_context', 'get_page']));
    expect(call.isError).toBeFalsy();
    expect(call.content[0].text).toContain('/checkout: score');
    expect(prompt.messages[0].content.text).toContain('button.pay');
  }, 180_000);
});
