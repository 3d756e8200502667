// BENCHMARKS.md as a results page (bench/results-page.ts): a new run takes its benchmark's
// place, the summary follows, the replaced run goes first into the history, and nothing outside
// the markers changes. The repository's own page is checked too: one current run per benchmark.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASELINES, benchmarksIn, currentRun, runHeading, withHistory, withRun, withSummary } from '../bench/results-page.ts';

const PAGE = [
  '# Benchmarks', '', 'Intro.', '', '<!-- bench:summary -->', '<!-- /bench:summary -->', '',
  '## ingest', '', 'What ingest measures.', '', '<!-- bench:ingest -->', '### ingest (2026-11-01; 2 x CPU, 24 GiB, Node v20)', '', '| old |', '<!-- /bench:ingest -->', '',
  '## start', '', 'What start measures.', '', '<!-- bench:start -->', '### start (2026-11-02; 2 x CPU, 24 GiB, Node v20)', '', '| start |', '<!-- /bench:start -->', '',
].join('\n');
const HISTORY = ['# Benchmark history', '', '## ingest', '', '<!-- history:ingest -->', '', '### ingest (2026-10-01; old machine)', '', '| older |', ''].join('\n');

describe('the results page', () => {
  it('puts a new run in place of the current one and hands back the one it replaced', () => {
    const run = '### ingest (2026-11-28; 2 x New CPU, 24 GiB, Node v22)\n\n| new |';
    const { page, replaced } = withRun(PAGE, 'ingest', run);
    expect(replaced).toBe('### ingest (2026-11-01; 2 x CPU, 24 GiB, Node v20)\n\n| old |');
    expect(currentRun(page, 'ingest')).toBe(run);
    expect(currentRun(page, 'start')).toBe(currentRun(PAGE, 'start'));
    expect(page).toContain('What ingest measures.');
    expect(page).not.toContain('| old |');
    expect(page).toContain('| [ingest](#ingest) | 2026-11-28 | 2 x New CPU, 24 GiB, Node v22 |');
    expect(page).toContain('| [start](#start) | 2026-11-02 | 2 x CPU, 24 GiB, Node v20 |');
  });

  it('gives a benchmark it does not have yet a section of its own', () => {
    const { page, replaced } = withRun(PAGE, 'soak', '### soak (2026-11-28; M)\n\n| soak |');
    expect(replaced).toBeNull();
    expect(benchmarksIn(page)).toEqual(['ingest', 'start', 'soak']);
    expect(page.trimEnd().endsWith('<!-- bench:soak -->\n### soak (2026-11-28; M)\n\n| soak |\n<!-- /bench:soak -->')).toBe(true);
  });

  it('files the replaced run first under its benchmark in the history, keeping the older ones', () => {
    const history = withHistory(HISTORY, 'ingest', '### ingest (2026-11-01; 2 x CPU)\n\n| old |');
    expect(history.indexOf('2026-11-01')).toBeLessThan(history.indexOf('2026-10-01'));
    expect(history).toContain('| older |');
    const added = withHistory(history, 'start', '### start (2026-11-02; M)');
    expect(added).toContain('## start\n\n<!-- history:start -->\n\n### start (2026-11-02; M)');
  });

  it('reads a run heading\'s date and machine, with or without a time of day', () => {
    expect(runHeading('### reads (2026-11-27, 05:10 to 06:50; 2 x Intel Xeon, 24 GiB, Node v20.20.2): row counts')).toEqual({ date: '2026-11-27', machine: '2 x Intel Xeon, 24 GiB, Node v20.20.2' });
  });

  it('the repository\'s page has one current run per benchmark, each with a date and a machine, and a summary that matches them', () => {
    const page = readFileSync(resolve(import.meta.dirname, '../../../BENCHMARKS.md'), 'utf8');
    expect(benchmarksIn(page).sort()).toEqual(Object.keys(BASELINES).sort());
    for (const name of benchmarksIn(page)) {
      const { date, machine } = runHeading(currentRun(page, name) ?? '');
      expect(date, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(machine, name).toMatch(/GiB, Node v\d+/);
    }
    expect(withSummary(page)).toBe(page);
  });
});
