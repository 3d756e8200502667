// The wall clock jumps under the scheduler (an NTP correction, a resumed VM): the pipeline
// scheduler of `mallard serve` and `mallard worker`, on a real store of each dialect, with an
// injected clock that jumps. Back an hour: the next cycle runs on the new time (at the next
// multiple of the interval), not an hour later, and the slot it jumped into is not run twice.
// Forward five hours: one catch-up cycle, not one per missed interval. Every cycle on the grid.
// The timer is faked (setInterval only) so the store's I/O runs for real.
import { afterEach, expect, it, vi } from 'vitest';
import type { JobLog } from '../../src/jobs/periodic.ts';
import { startScheduler } from '../../src/pipeline/scheduler.ts';
import { eachDialect, useHarness } from '../helpers/harness.ts';

const MIN = 60_000;
const INTERVAL = 15 * MIN;
const TICK = 10_000;
const C = Date.UTC(2026, 10, 2, 12, 0);
const UNTIL = { timeout: 60_000 };

eachDialect('pipeline scheduler across clock jumps', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  afterEach(() => { vi.useRealTimers(); });

  it('follows a clock moved back at once, and catches up a clock moved forward with one cycle', { timeout: 120_000 }, async () => {
    const org = await h.org('Jumps');
    const done: number[] = [];
    const warnings: string[] = [];
    const log: JobLog = {
      debug: (obj, msg) => { if (msg === 'cycle done' && (obj as { siteId: string }).siteId === org.site_id) done.push(Date.parse((obj as { cycleAt: string }).cycleAt)); },
      info: () => {}, warn: (_obj, msg) => { warnings.push(msg ?? ''); }, error: (obj) => { throw (obj as { err: Error }).err; },
    };
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const tick = async (at: number) => { h.clock.set(at); await vi.advanceTimersByTimeAsync(TICK); };

    h.clock.set(C + 7 * MIN);
    const scheduler = startScheduler(h.store, h.clock, INTERVAL, log);
    await vi.waitFor(() => expect(done).toEqual([C]), UNTIL);
    await tick(C + INTERVAL + 1000);
    await vi.waitFor(() => expect(done).toEqual([C, C + INTERVAL]), UNTIL);

    // Back an hour, into the slot at C - 45 min: nothing runs for that slot, one warning.
    await tick(C + INTERVAL + 1000 - 60 * MIN);
    await tick(C + INTERVAL + 5000 - 60 * MIN);
    expect(done).toEqual([C, C + INTERVAL]);
    expect(warnings).toEqual(['the clock moved back past the last cycle; cycles follow the new time']);
    // The next multiple on the new clock runs when the clock reaches it, not an hour later.
    await tick(C - 30 * MIN + 1000);
    await vi.waitFor(() => expect(done).toEqual([C, C + INTERVAL, C - 30 * MIN]), UNTIL);
    await tick(C - 15 * MIN + 1000);
    await vi.waitFor(() => expect(done).toEqual([C, C + INTERVAL, C - 30 * MIN, C - 15 * MIN]), UNTIL);

    // Forward five hours: one cycle at the latest multiple, then the grid as usual.
    await tick(C + 5 * 60 * MIN + 7 * MIN);
    await vi.waitFor(() => expect(done).toHaveLength(5), UNTIL);
    await tick(C + 5 * 60 * MIN + 8 * MIN);
    await tick(C + 5 * 60 * MIN + INTERVAL + 1000);
    await vi.waitFor(() => expect(done).toHaveLength(6), UNTIL);
    await scheduler.stop();
    expect(done).toEqual([C, C + INTERVAL, C - 30 * MIN, C - 15 * MIN, C + 5 * 60 * MIN, C + 5 * 60 * MIN + INTERVAL]);
    expect(warnings).toHaveLength(1);

    // The store holds one row per cycle run, each on the grid.
    const cycles = await h.store.db.selectFrom('site_score_history').select('cycle_at').where('site_id', '=', org.site_id).orderBy('cycle_at').execute();
    expect(cycles.map((r) => Number(r.cycle_at))).toEqual([C - 30 * MIN, C - 15 * MIN, C, C + INTERVAL, C + 5 * 60 * MIN, C + 5 * 60 * MIN + INTERVAL]);
  });
});
