// Runs a cycle for every site at each multiple of the interval (UTC), inside `mallard serve`
// or `mallard worker`. A tick that finds the previous round still running waits for it;
// claims in the store keep several schedulers from running the same site at once.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/db.ts';
import { activeSiteIds, cycleTimeAt, runCycle } from './cycle.ts';

const TICK_MS = 10_000;

export function startScheduler(store: Store, clock: Clock, intervalMs: number, log: FastifyBaseLogger) {
  let lastCycle = cycleTimeAt(clock.now(), intervalMs) - intervalMs;
  let running: Promise<void> | null = null;
  const tick = () => {
    const due = cycleTimeAt(clock.now(), intervalMs);
    if (running || due <= lastCycle) return;
    running = (async () => {
      try {
        for (const siteId of await activeSiteIds(store.db)) {
          const result = await runCycle(store.db, siteId, due, { intervalMs, clock });
          if (result.status === 'done') log.debug({ siteId, cycleAt: new Date(due).toISOString(), ...result.scores }, 'cycle done');
        }
        lastCycle = due;
      } catch (err) {
        log.error({ err }, 'pipeline cycle failed; retrying at the next tick');
      } finally {
        running = null;
      }
    })();
  };
  tick();
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
