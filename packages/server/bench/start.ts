// What the runtime TypeScript loader costs (issue 17, items 6 and 7): `mallard serve` started
// from the compiled JavaScript in dist/ and from the sources through tsx
// (MALLARD_FROM_SOURCE=1), alternately, on the same migrated SQLite store with one org. For
// each start: milliseconds from spawn to the first 200 from /readyz, the server's RSS once
// ready, and its RSS and peak RSS after 5 s of read and ingest load. Medians of 5 starts each.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { batchBody, benchStore, freePort, SECRET } from './ingest.ts';

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const STARTS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.match(/\d+/)?.[0] ?? 0) / 1024);
}

interface Start { readyMs: number; readyRss: number; loadedRss: number; peakRss: number }

async function startOnce(url: string, fromSource: boolean, keys: { secret: string; publishable: string }): Promise<Start> {
  const port = await freePort();
  const began = process.hrtime.bigint();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env, DATABASE_URL: url, MALLARD_SECRET: SECRET, PORT: String(port), LOG_LEVEL: 'warn', MALLARD_DEMO: '0',
      MALLARD_FROM_SOURCE: fromSource ? '1' : '0', RATE_LIMIT_INGEST_PER_MIN: '100000000', RATE_LIMIT_QUERY_PER_MIN: '10000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let readyMs = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) { readyMs = Number(process.hrtime.bigint() - began) / 1e6; break; }
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyRss = statusMb(child.pid!, 'VmRSS');
  let n = fromSource ? 1_000_000 : 2_000_000;
  await Promise.all([
    autocannon({ url: `http://127.0.0.1:${port}/v1/query/scores`, connections: 8, duration: 5, headers: { authorization: `Bearer ${keys.secret}` } }),
    autocannon({
      url: `http://127.0.0.1:${port}/v1/ingest`, connections: 8, duration: 5, method: 'POST', headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: batchBody(keys.publishable, n++, Date.now()) }) }],
    }),
  ]);
  const loadedRss = statusMb(child.pid!, 'VmRSS');
  const peakRss = statusMb(child.pid!, 'VmHWM');
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  return { readyMs, readyRss, loadedRss, peakRss };
}

export async function runStartBench(): Promise<string> {
  const { dir, url, store, org } = await benchStore('mallard-start-');
  await store.close();
  const runs: Record<'compiled' | 'source', Start[]> = { compiled: [], source: [] };
  for (let i = 0; i < STARTS; i++) {
    for (const path of ['compiled', 'source'] as const) {
      const run = await startOnce(url, path === 'source', org.keys);
      runs[path].push(run);
      console.error(`start ${i + 1}/${STARTS} ${path}: ready in ${Math.round(run.readyMs)} ms, RSS ${run.readyRss} MB, after load ${run.loadedRss} MB (peak ${run.peakRss})`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const row = (label: string, xs: Start[]) =>
    `| ${label} | ${Math.round(median(xs.map((x) => x.readyMs)))} | ${median(xs.map((x) => x.readyRss))} | ${median(xs.map((x) => x.loadedRss))} | ${median(xs.map((x) => x.peakRss))} |`;
  const ratio = median(runs.compiled.map((x) => x.readyMs)) / median(runs.source.map((x) => x.readyMs));
  return [
    `SQLite store with one org, migrated; \`mallard serve\` with its worker; 5 s of \`/v1/query/scores\` and \`/v1/ingest\` (8 connections each) after ready; medians of ${STARTS} alternating starts each; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    '| start path | ms to first 200 from /readyz | RSS when ready, MB | RSS after 5 s of load, MB | peak RSS, MB |',
    '|---|---|---|---|---|',
    row('compiled JavaScript (dist/, the default after `npm install`)', runs.compiled),
    row('TypeScript through tsx (MALLARD_FROM_SOURCE=1)', runs.source),
    '',
    `- Compiled / tsx start time: **${Math.round(ratio * 100)} %**.`,
  ].join('\n');
}
