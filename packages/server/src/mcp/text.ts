// Small helpers for the few readable lines each tool and prompt writes: lists are capped and
// say how many were left out, so a summary stays short whatever the site's size.
const LIST_CAP = 10;

/** "- a", "- b", ... and "- ...and 3 more pages" when `total` exceeds what is shown. */
export function bullets<T>(items: readonly T[], line: (item: T) => string, noun: string, total = items.length, cap = LIST_CAP): string[] {
  const shown = items.slice(0, cap).map((item) => `- ${line(item)}`);
  const left = total - shown.length;
  if (left > 0) shown.push(`- ...and ${left} more ${noun}`);
  return shown;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

export const signed = (n: number) => (n > 0 ? `+${n}` : `${n}`);

/** "rage_click 12, dead_click 3" from a count map, largest first. */
export function countsLine(counts: Record<string, number>): string {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${n}`).join(', ');
}

export const lines = (...parts: (string | string[] | false | null | undefined)[]) =>
  parts.flat().filter((p): p is string => typeof p === 'string').join('\n');
