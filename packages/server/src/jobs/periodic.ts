// A task run on a timer that never overlaps itself: a tick that finds the last run still going
// skips. stop() clears the timer and waits for a run in progress. The timer never keeps the
// process alive on its own.
import type { Log } from '../domain/context.ts';
import type { StoreFaultEpisodes } from '../store/store-faults.ts';

export interface Periodic { stop(): Promise<void> }

/** What background jobs log through: pino's shape, as `mallard worker` and the server's own logger have it. */
export interface JobLog extends Log { debug(obj: object, msg?: string): void }

export function runPeriodically(everyMs: number, task: () => Promise<unknown>, onError: (err: Error) => void, options: { now?: boolean } = {}): Periodic {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= task().then(() => undefined, onError).finally(() => { running = null; });
  };
  if (options.now) tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * The onError of a store-backed job: a store fault (an outage, a full disk) is the store's
 * episode, logged once however many runs meet it; anything else is this job's failure.
 */
export function jobFailure(faults: StoreFaultEpisodes, log: Pick<Log, 'error'>, message: string): (err: Error) => void {
  return (err) => { if (!faults.failed(err)) log.error({ err }, message); };
}
