// A separate process on a store, running pipeline steps on command: one JSON command per line
// on stdin, one JSON answer per line on stdout ({ ok } or { error }), a { ready } line once the
// store is open. Two of these are two workers (or `mallard serve` and `mallard worker`) on one
// store, as in production: on SQLite only separate processes hold separate write locks.
// Started through test/helpers/pipeline-process.ts.
import { createInterface } from 'node:readline';
import { ManualClock } from '../../src/clock.ts';
import { alertStep } from '../../src/pipeline/alert-step.ts';
import { claimSite, releaseSite, runCycle } from '../../src/pipeline/cycle.ts';
import { openStore } from '../../src/store/db.ts';
import type { PipelineCommand } from './pipeline-process.ts';

const store = openStore(process.argv[2], { poolSize: 5, sqliteReaders: 0 });

async function run(command: PipelineCommand): Promise<unknown> {
  switch (command.op) {
    case 'alertStep': return alertStep(store.db, command.siteId, command.cycleAt);
    case 'runCycle': return runCycle(store.db, command.siteId, command.cycleAt, { intervalMs: command.intervalMs, clock: new ManualClock(command.now), holder: command.holder });
    case 'claimSite': return claimSite(store.db, command.siteId, command.holder, command.cycleAt, command.now);
    case 'releaseSite': return releaseSite(store.db, command.siteId, command.holder);
  }
}

await store.ping();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  let answer: { ok: unknown } | { error: string };
  try {
    answer = { ok: (await run(JSON.parse(line) as PipelineCommand)) ?? null };
  } catch (err) {
    answer = { error: err instanceof Error ? err.message : String(err) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
await store.close();
