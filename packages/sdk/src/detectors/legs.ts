// Back-and-forth movement along one axis, for thrash_cursor and jerky_scrolling: a leg is
// movement in one direction; a reversal is a change of direction after a leg of at least
// `minLeg` (a shorter leg starts the count afresh); reversals count within `windowMs` from the
// start of the first leg.
export function legs(minLeg: () => number, windowMs: number) {
  let pos = NaN;
  let dir = 0;
  let from = 0;
  /** When each leg of the current run began. */
  let starts: number[] = [];
  return {
    /** Records a position at `t`; returns the reversals within the window. */
    move(p: number, t: number): number {
      const d = Math.sign(p - pos);
      if (d && d !== dir) {
        starts = dir && Math.abs(pos - from) >= minLeg() ? [...starts, t] : [t];
        dir = d;
        from = pos;
      }
      pos = p;
      while (t - starts[0] > windowMs) starts.shift();
      return starts.length - 1;
    },
    /** Starts counting afresh from position `p` (unknown when not given). */
    reset(p = NaN) {
      pos = p;
      dir = 0;
      starts = [];
    },
  };
}
