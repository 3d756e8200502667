// Nothing reads the wall clock directly: tests, backfills and the simulator inject their own.
export interface Clock { now(): number }

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and move. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now() { return this.ms; }
  set(ms: number) { this.ms = ms; }
  advance(ms: number) { this.ms += ms; }
}

export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null | undefined) => (ms == null ? null : iso(ms));
