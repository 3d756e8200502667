// Runs a cycle for every site at each multiple of the interval (UTC), inside `mallard serve`
// or `mallard worker`. A tick that finds the previous round still running waits for it;
// claims in the store keep several schedulers from running the same site at once.
// Cycles run on the store's pipelineDb: on a SQLite file their plain reads (the scoring window's
// events and signals, clustering, deploy after-scores) go to the pipeline's own reader thread,
// so a cycle neither stalls nor queues behind the requests this process serves; its claim, writes and transactions stay on the main
// connection (store/split-dialect.ts).
import type { Clock } from '../clock.ts';
import type { Store } from '../store/db.ts';
import { runPeriodically, type JobLog, type Periodic } from '../jobs/periodic.ts';
import { activeSiteIds, cycleTimeAt, runCycle } from './cycle.ts';

const TICK_MS = 10_000;

export function startScheduler(store: Store, clock: Clock, intervalMs: number, log: JobLog): Periodic {
  let lastCycle = cycleTimeAt(clock.now(), intervalMs) - intervalMs;
  return runPeriodically(TICK_MS, async () => {
    const due = cycleTimeAt(clock.now(), intervalMs);
    if (due <= lastCycle) return;
    for (const siteId of await activeSiteIds(store.pipelineDb)) {
      const result = await runCycle(store.pipelineDb, siteId, due, { intervalMs, clock });
      const cycleAt = new Date(due).toISOString();
      if (result.status === 'done') log.debug({ siteId, cycleAt, ...result.scores }, 'cycle done');
      else log.debug({ siteId, cycleAt }, 'cycle skipped: another process holds the site');
    }
    // Only a round that finished moves on; a failed one is tried again at the next tick.
    lastCycle = due;
  }, (err) => log.error({ err }, 'pipeline cycle failed; retrying at the next tick'), { now: true });
}
