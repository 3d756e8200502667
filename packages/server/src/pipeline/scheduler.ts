// Runs a cycle for every site at each multiple of the interval (UTC), inside `mallard serve`
// or `mallard worker`. A tick that finds the previous round still running waits for it;
// claims in the store keep several schedulers from running the same site at once.
// Cycles run on the store's pipelineDb: on a SQLite file their plain reads (the scoring window's
// events and signals, clustering, deploy after-scores) go to the pipeline's own reader thread,
// so a cycle neither stalls nor queues behind the requests this process serves; its claim, writes and transactions stay on the main
// connection (store/split-dialect.ts).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/db.ts';
import { jobFailure, runPeriodically, type JobLog, type Periodic } from '../jobs/periodic.ts';
import { activeSiteIds, cycleTimeAt, runCycle } from './cycle.ts';

const TICK_MS = 10_000;

/**
 * Which cycle a tick runs, if any, given the last one run. The timer ticks on a monotonic clock;
 * the cycle times come from the wall clock, which may jump. Forward (a suspended machine, a
 * corrected clock): one cycle at the latest multiple, never one per missed interval. Backward
 * past the last cycle: the slot the clock is now in counts as run (it was, or a later one was),
 * and the next multiple runs when the clock reaches it, rather than nothing until the clock
 * catches up with the old time.
 */
export function nextCycle(now: number, lastCycle: number, intervalMs: number): { run: number | null; lastCycle: number; movedBack: boolean } {
  const due = cycleTimeAt(now, intervalMs);
  if (due > lastCycle) return { run: due, lastCycle, movedBack: false };
  if (due < lastCycle) return { run: null, lastCycle: due, movedBack: true };
  return { run: null, lastCycle, movedBack: false };
}

export function startScheduler(store: Store, clock: Clock, intervalMs: number, log: JobLog): Periodic {
  let lastCycle = cycleTimeAt(clock.now(), intervalMs) - intervalMs;
  // One holder for every claim of this scheduler: a round that failed with its claims still
  // held (the database went away before their release) takes them back when it is retried.
  const holder = randomUUID();
  return runPeriodically(TICK_MS, async () => {
    const next = nextCycle(clock.now(), lastCycle, intervalMs);
    if (next.movedBack) {
      log.warn({ lastCycle: new Date(lastCycle).toISOString(), nextCycle: new Date(next.lastCycle + intervalMs).toISOString() }, 'the clock moved back past the last cycle; cycles follow the new time');
    }
    lastCycle = next.lastCycle;
    if (next.run === null) return;
    const due = next.run;
    for (const siteId of await activeSiteIds(store.pipelineDb)) {
      const result = await runCycle(store.pipelineDb, siteId, due, { intervalMs, clock, holder });
      const cycleAt = new Date(due).toISOString();
      if (result.status === 'done') log.debug({ siteId, cycleAt, ...result.scores }, 'cycle done');
      else log.debug({ siteId, cycleAt }, 'cycle skipped: another process holds the site');
    }
    // Only a round that finished moves on; a failed one is tried again at the next tick.
    lastCycle = due;
  }, jobFailure(store.faults, log, 'pipeline cycle failed; retrying at the next tick'), { now: true });
}
