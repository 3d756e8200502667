// `npm run bench -- <name>`: runs one benchmark and prints its figures as Markdown for
// BENCHMARKS.md (machine and date included). Figures are ratios against a baseline measured
// in the same run on the same machine.
import { cpus, totalmem } from 'node:os';

const benches: Record<string, () => Promise<string>> = {
  ingest: async () => (await import('./ingest.ts')).runIngestBench(),
  pipeline: async () => (await import('./pipeline.ts')).runPipelineBench(),
  dashboard: async () => (await import('./dashboard.ts')).runDashboardBench(),
  stall: async () => (await import('./stall.ts')).runStallBench(),
};

const name = process.argv[2];
if (!name || !benches[name]) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}>`);
  process.exit(2);
}
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const report = await benches[name]();
console.log(`\n### ${name} (${new Date().toISOString().slice(0, 10)}; ${machine})\n\n${report}`);
process.exit(0);
