// The pipeline scheduler inside `mallard serve` and `mallard worker` (docs/scoring.md): every
// active site gets a cycle at each multiple of the interval in UTC, once per interval however
// often the timer ticks; a round that fails is tried again at the next tick; stop() waits for a
// round in progress and leaves no timer. The timer is faked (only setInterval, so the store's
// own I/O runs for real) and the clock is the harness's. Both dialects.
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextCycle, startScheduler } from '../src/pipeline/scheduler.ts';
import type { JobLog } from '../src/jobs/periodic.ts';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';

const MIN = 60_000;
const INTERVAL = 15 * MIN;
const TICK = 10_000;
const C = Date.UTC(2026, 10, 2, 12, 0); // a multiple of the interval
/** Rounds do real I/O: wait for them generously (a busy machine), never for a set time. */
const UNTIL = { timeout: 60_000 };

eachDialect('pipeline scheduler', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  afterEach(() => { vi.useRealTimers(); });

  it('runs every active site once per multiple of the interval, retries a failed round, and stops cleanly', { timeout: 120_000 }, async () => {
    const first = await h.org('Scheduled');
    const second = await h.org('Scheduled');
    const gone = await h.org('Deleted');
    expect((await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${gone.site_id}`, headers: bearer(gone.jwt) })).statusCode).toBe(200);
    const sites = [first.site_id, second.site_id].sort();
    const round = (t: number) => sites.map((siteId) => `${new Date(t).toISOString()} ${siteId}`);

    const done: string[] = [];
    const errors: string[] = [];
    const log: JobLog = {
      debug: (obj, msg) => { if (msg === 'cycle done') { const o = obj as { cycleAt: string; siteId: string }; done.push(`${o.cycleAt} ${o.siteId}`); } },
      info: () => {}, warn: () => {},
      error: (obj) => { errors.push((obj as { err: Error }).err.message); },
    };

    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // Started 7 minutes into an interval: the cycle at its start runs at once, for the two live sites only.
    h.clock.set(C + 7 * MIN);
    const scheduler = startScheduler(h.store, h.clock, INTERVAL, log);
    await vi.waitFor(() => expect(done).toHaveLength(2), UNTIL);
    expect(done).toEqual(round(C));

    // More ticks within the same interval run nothing (checked below: the next round follows directly).
    h.clock.set(C + 14 * MIN + 59_000);
    await vi.advanceTimersByTimeAsync(3 * TICK);

    // The next interval's first tick fails (the claims table is away): reported, and tried again at the next tick.
    await sql`ALTER TABLE pipeline_claims RENAME TO pipeline_claims_away`.execute(h.store.db);
    h.clock.set(C + INTERVAL + 1000);
    await vi.advanceTimersByTimeAsync(TICK);
    await vi.waitFor(() => expect(errors).toHaveLength(1), UNTIL);
    expect(done).toHaveLength(2);
    await sql`ALTER TABLE pipeline_claims_away RENAME TO pipeline_claims`.execute(h.store.db);
    await vi.advanceTimersByTimeAsync(TICK);
    await vi.waitFor(() => expect(done).toHaveLength(4), UNTIL);
    expect(done).toEqual([...round(C), ...round(C + INTERVAL)]);

    // stop() during a round waits for it, and leaves no timer behind.
    h.clock.set(C + 2 * INTERVAL + 1000);
    await vi.advanceTimersByTimeAsync(TICK);
    await scheduler.stop();
    expect(done).toEqual([...round(C), ...round(C + INTERVAL), ...round(C + 2 * INTERVAL)]);
    expect(vi.getTimerCount()).toBe(0);
    expect(errors).toHaveLength(1);

    // Each cycle ran as of its multiple of the interval, never the clock's time; the deleted site never ran.
    for (const siteId of sites) {
      const cycles = await h.store.db.selectFrom('site_score_history').select('cycle_at').where('site_id', '=', siteId).orderBy('cycle_at').execute();
      expect(cycles.map((r) => Number(r.cycle_at))).toEqual([C, C + INTERVAL, C + 2 * INTERVAL]);
    }
    expect(await h.store.db.selectFrom('site_score_history').select('id').where('site_id', '=', gone.site_id).execute()).toEqual([]);
  });
});

// What a tick runs, for each way the wall clock can move (the fault suite runs it on a store).
describe('nextCycle', () => {
  const last = C;
  it.each([
    ['the same slot', C + 14 * MIN, { run: null, lastCycle: C, movedBack: false }],
    ['the next slot', C + INTERVAL + 1, { run: C + INTERVAL, lastCycle: C, movedBack: false }],
    ['five hours ahead: one catch-up', C + 5 * 60 * MIN + 3 * MIN, { run: C + 5 * 60 * MIN, lastCycle: C, movedBack: false }],
    ['an hour back: that slot counts as run', C - 60 * MIN + 2 * MIN, { run: null, lastCycle: C - 60 * MIN, movedBack: true }],
  ])('%s', (_name, now, expected) => {
    expect(nextCycle(now, last, INTERVAL)).toEqual(expected);
  });
});
