// `npm run bench -- <name>`: runs one benchmark (or `all` of them in sequence), prints its
// figures as Markdown (machine and date included) and puts them in BENCHMARKS.md as that
// benchmark's current run, the run they replace moving to BENCHMARKS-HISTORY.md (`--print`
// only prints). Figures are ratios against a baseline measured in the same run on the same machine.
import { cpus, totalmem } from 'node:os';
import { recordRun } from './results-page.ts';

const benches: Record<string, (argv: string[]) => Promise<string>> = {
  ingest: async () => (await import('./ingest.ts')).runIngestBench(),
  pipeline: async () => (await import('./pipeline.ts')).runPipelineBench(),
  dashboard: async () => (await import('./dashboard.ts')).runDashboardBench(),
  stall: async () => (await import('./stall.ts')).runStallBench(),
  // What friction clip uploads (issue 28) cost ordinary ingest beside them.
  clips: async () => (await import('./clips.ts')).runClipsBench(),
  deploys: async () => (await import('./deploys.ts')).runDeploysBench(),
  elements: async () => (await import('./elements.ts')).runElementsBench(),
  reads: async (argv) => (await import('./reads.ts')).runReadsBench(argv),
  // The reads bench on the sessions search (issue 29; its default: friction order, last 7 days), with the issues list beside it.
  sessions: async (argv) => (await import('./reads.ts')).runReadsBench(['--routes', 'sessions,issues', ...argv]),
  // The reads bench on the ad-hoc 4-step funnel and the sessions search (issue 29), with flows (the other per-session walk) beside them.
  funnel: async (argv) => (await import('./reads.ts')).runReadsBench(['--routes', 'funnel,sessions,flows', ...argv]),
  start: async () => (await import('./start.ts')).runStartBench(),
  // The clips recorder in Chromium (issue 28): main-thread time, buffer and clip sizes, the SDK's build sizes.
  recorder: async () => (await import('./recorder.ts')).runRecorderBench(),
};

const name = process.argv[2];
if (!name || !(benches[name] || name === 'all')) {
  console.error(`usage: npm run bench -- <${[...Object.keys(benches), 'all'].join('|')}> [--print] [options; \`reads\`, \`funnel\` and \`all\` take --sizes, --dialects, --database-url, --seed]`);
  process.exit(2);
}
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
// `all` passes its options to the benches that take them (only `reads` and `funnel` do).
const printOnly = process.argv.includes('--print');
const options = process.argv.slice(3).filter((arg) => arg !== '--print');
for (const bench of name === 'all' ? Object.keys(benches) : [name]) {
  const report = await benches[bench](options);
  const run = `### ${bench} (${new Date().toISOString().slice(0, 10)}; ${machine})\n\n${report}`;
  console.log(`\n${run}`);
  if (!printOnly) recordRun(bench, run);
}
process.exit(0);
