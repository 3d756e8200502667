// BENCHMARKS.md is a results page: for each benchmark, what it measures and its newest run,
// between markers; BENCHMARKS-HISTORY.md keeps every earlier run, newest first. `npm run bench`
// puts a new run in place with these functions, which touch nothing outside the markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What each benchmark's figures are ratios against, for the summary table. */
export const BASELINES: Readonly<Record<string, string>> = {
  ingest: 'a bare Fastify route parsing the same bodies; a raw bulk insert of the same rows',
  pipeline: 'one cycle at 10M older signals against the same cycle at 1M',
  deploys: 'the after-score refresh of 60 deploys against that of 1, on the same rows',
  dashboard: 'a warm load (cached assets) against a cold one, in the same browser',
  stall: 'ingest alone, against ingest beside heavy reads on the same server (read pool off and on)',
  clips: 'ingest alone, against ingest beside friction clip uploads on the same server',
  reads: 'a bare Fastify route in the same run, at each dataset size',
  sessions: 'a bare Fastify route in the same run, at each dataset size',
  funnel: 'a bare Fastify route in the same run, at each dataset size',
  start: 'the tsx start path against the compiled one',
  elements: 'the same answer computed from the raw signals',
  soak: 'its own first half (drift of RSS and p99 over 10 minutes)',
  recorder: 'the same page and interaction with clips off (the core SDK alone), in alternating runs',
};

const open = (name: string) => `<!-- bench:${name} -->`;
const close = (name: string) => `<!-- /bench:${name} -->`;
const historyMark = (name: string) => `<!-- history:${name} -->`;

/** The current run of a benchmark in the page, or null. */
export function currentRun(page: string, name: string): string | null {
  const start = page.indexOf(open(name));
  const end = page.indexOf(close(name));
  if (start < 0 || end < start) return null;
  return page.slice(start + open(name).length, end).trim();
}

/** The benchmarks the page holds, in its order. */
export function benchmarksIn(page: string): string[] {
  return [...page.matchAll(/<!-- bench:([a-z-]+) -->/g)].map((m) => m[1]).filter((name) => name !== 'summary');
}

/**
 * The page with `run` as the benchmark's current run, and the run it replaced. A benchmark
 * the page does not have yet gets a section of its own at the end.
 */
export function withRun(page: string, name: string, run: string): { page: string; replaced: string | null } {
  const replaced = currentRun(page, name);
  const block = `${open(name)}\n${run.trim()}\n${close(name)}`;
  const next = replaced === null
    ? `${page.trimEnd()}\n\n## ${name}\n\n${block}\n`
    : page.slice(0, page.indexOf(open(name))) + block + page.slice(page.indexOf(close(name)) + close(name).length);
  return { page: withSummary(next), replaced };
}

/** `### name (YYYY-MM-DD...; machine)` of a run: its date and machine. */
export function runHeading(run: string): { date: string; machine: string } {
  const heading = run.split('\n', 1)[0];
  const match = /\((\d{4}-\d{2}-\d{2})[^;]*;\s*([^)]*)\)/.exec(heading);
  return { date: match?.[1] ?? 'unknown', machine: match?.[2]?.trim() ?? 'unknown' };
}

/** The summary table at the top of the page, rebuilt from the current runs. */
export function withSummary(page: string): string {
  const rows = benchmarksIn(page).map((name) => {
    const { date, machine } = runHeading(currentRun(page, name) ?? '');
    return `| [${name}](#${name}) | ${date} | ${machine} | ${BASELINES[name] ?? 'see its section'} |`;
  });
  const table = [open('summary'), '| benchmark | newest run | machine | figures are ratios against |', '|---|---|---|---|', ...rows, close('summary')].join('\n');
  const start = page.indexOf(open('summary'));
  const end = page.indexOf(close('summary'));
  if (start < 0 || end < start) return page;
  return page.slice(0, start) + table + page.slice(end + close('summary').length);
}

/** The history with a replaced run first under its benchmark (a section made for it if new). */
export function withHistory(history: string, name: string, replaced: string): string {
  const mark = historyMark(name);
  const at = history.indexOf(mark);
  if (at < 0) return `${history.trimEnd()}\n\n## ${name}\n\n${mark}\n\n${replaced.trim()}\n`;
  const after = at + mark.length;
  return `${history.slice(0, after)}\n\n${replaced.trim()}\n${history.slice(after).replace(/^\n+/, '\n')}`;
}

const ROOT = resolve(import.meta.dirname, '../../..');

/** Puts a run in BENCHMARKS.md as its benchmark's current one and the replaced run first in BENCHMARKS-HISTORY.md. */
export function recordRun(name: string, run: string, root = ROOT): void {
  const pagePath = join(root, 'BENCHMARKS.md');
  const historyPath = join(root, 'BENCHMARKS-HISTORY.md');
  const { page, replaced } = withRun(readFileSync(pagePath, 'utf8'), name, run);
  if (replaced) writeFileSync(historyPath, withHistory(readFileSync(historyPath, 'utf8'), name, replaced));
  writeFileSync(pagePath, page);
}
