// The timer behind the scheduler, maintenance, the delivery worker and the demo trickle.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runPeriodically } from '../src/jobs/periodic.ts';

describe('runPeriodically', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('never overlaps a run, reports failures and keeps going, and stop() waits for the run in progress', async () => {
    vi.useFakeTimers();
    const finish: (() => void)[] = [];
    const errors: string[] = [];
    let calls = 0;
    const job = runPeriodically(1000, () => {
      calls++;
      if (calls === 2) return Promise.reject(new Error('second failed'));
      return new Promise<void>((resolve) => { finish.push(resolve); });
    }, (err) => errors.push(err.message));

    expect(calls).toBe(0); // no run before the first tick without `now`
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(5000); // five ticks while the first run is still going
    expect(calls).toBe(1);
    finish.shift()!();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(errors).toEqual(['second failed']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(3);

    let stopped = false;
    const stopping = job.stop().then(() => { stopped = true; });
    await vi.advanceTimersByTimeAsync(5000);
    expect(stopped).toBe(false); // waits for run 3
    finish.shift()!();
    await stopping;
    expect(calls).toBe(3); // and no tick after stop
  });

  it('with `now`, runs at once', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const job = runPeriodically(60_000, async () => { calls++; }, () => {}, { now: true });
    expect(calls).toBe(1);
    await job.stop();
  });
});
