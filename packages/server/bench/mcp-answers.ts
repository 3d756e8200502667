// The MCP token budgets (docs/mcp.md, "Token budgets") measured on a bench dataset: every read
// tool's default answer, text and structured content, in tokens (characters / 4), and the
// listing. Reads a private copy of the cached dataset (SQLite), so the bench's own copy is never
// written to (query_raw audits its reads). The write tools are measured on the demo only
// (test/mcp-budget.test.ts): their answers are one record whatever the dataset's size.
//   npx tsx bench/mcp-answers.ts [--size 1m] [--show=<tool>]   (builds the dataset first when it is not
//   cached; --show prints a tool's structured content field by field and the start of its text)
import { copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { simulatorApp } from '../src/simulate/run.ts';
import { openStore } from '../src/store/db.ts';
import { BENCH_SECRET, ensureDataset, SIZES } from './dataset.ts';

const BUDGET = 4000;
const tokens = (text: string) => Math.ceil(text.length / 4);
const size = process.argv.includes('--size') ? process.argv[process.argv.indexOf('--size') + 1] : '1m';
if (!(size in SIZES)) throw new Error(`--size is one of ${Object.keys(SIZES).join(', ')}`);

const dataset = await ensureDataset({ dialect: 'sqlite', signals: SIZES[size], seed: 'mallard', endAt: Date.now() }, (line) => console.error(line));
const copy = join(tmpdir(), `mcp-answers-${process.pid}.db`);
copyFileSync(dataset.url.slice('sqlite:'.length), copy);
const store = openStore(`sqlite:${copy}`, { sqliteReaders: 0 });
const config = loadConfig({ MALLARD_SECRET: BENCH_SECRET, DATABASE_URL: `sqlite:${copy}`, MALLARD_DEMO: '0' });
const app = await simulatorApp(store, config, new ManualClock(dataset.endAt));

let id = 0;
async function rpc(method: string, params?: Record<string, unknown>) {
  const res = await app.inject({
    method: 'POST', url: '/v1/mcp',
    headers: { authorization: `Bearer ${dataset.secretKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: ++id, method, params },
  });
  return res.json().result;
}

const p = dataset.params;
const facts: Record<string, unknown> = {
  page: p.page, a: p.page, b: p.otherPage, selector: p.element, issue_id: p.issueId, alert_id: p.alertId, deploy_id: p.deployId,
  session_id: p.sessionId, table: 'events', steps: '/products/*,/cart,/checkout',
};
const { tools } = await rpc('tools/list') as { tools: { name: string; inputSchema: { required?: string[] }; annotations: { readOnlyHint: boolean } }[] };
console.log(`${size} dataset (${dataset.counts.sessions} sessions, ${dataset.counts.signals} signals): tools/list ${tokens(JSON.stringify({ tools }))} tokens`);
let over = 0;
for (const tool of tools.filter((t) => t.annotations.readOnlyHint)) {
  const args = Object.fromEntries((tool.inputSchema.required ?? []).map((f) => [f, facts[f]]));
  let result = await rpc('tools/call', { name: tool.name, arguments: args });
  const wanted = result._meta?.['mallard/error']?.details?.field;
  if (result.isError && facts[wanted] !== undefined) result = await rpc('tools/call', { name: tool.name, arguments: { ...args, [wanted]: facts[wanted] } });
  const text = tokens(result.content[0].text);
  const structured = tokens(JSON.stringify(result.structuredContent ?? {}));
  if (text >= BUDGET || structured >= BUDGET) over++;
  if (process.argv.includes(`--show=${tool.name}`)) {
    for (const [k, v] of Object.entries(result.structuredContent ?? {})) console.log(`  ${k}: ${tokens(JSON.stringify(v))}${Array.isArray(v) ? ` (${v.length} entries)` : ''}`);
    console.log(result.content[0].text.slice(0, 1500));
  }
  console.log(`${tool.name.padEnd(22)} text ${String(text).padStart(5)}  structured ${String(structured).padStart(5)}${result.isError ? `  (error: ${result.content[0].text.slice(0, 80)})` : ''}`);
}
await app.close();
await store.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
console.log(over === 0 ? `every answer under ${BUDGET} tokens` : `${over} answers over ${BUDGET} tokens`);
process.exitCode = over === 0 ? 0 : 1;
