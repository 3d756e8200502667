// IN lists padded to the next power of two by repeating their last value (a duplicate changes
// nothing in an IN or NOT IN list), so a query whose list length varies compiles to a few SQL
// texts instead of one per length. Both statement caches (db.ts and the read pool's
// read-worker.cjs) keep every text they prepare for the life of the process, so unpadded
// lists of thousands of ids made memory grow with every new length (the soak runs of 2026-11-26, BENCHMARKS-HISTORY.md).
export function padInList<T>(values: readonly T[]): T[] {
  if (values.length <= 1) return [...values];
  let size = 2;
  while (size < values.length) size *= 2;
  const padded = [...values];
  while (padded.length < size) padded.push(values[values.length - 1]);
  return padded;
}
