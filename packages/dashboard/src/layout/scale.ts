// Scales for charts and bars: linear mapping, round tick values, the score axis range and
// the time window of a chart.
export type Scale = (value: number) => number;

export function linearScale(domain: [number, number], range: [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  return (value) => (span === 0 ? r0 : r0 + ((value - d0) / span) * (r1 - r0));
}

/** A round step (1, 2 or 5 times a power of ten) giving about `count` ticks over the span. */
export function niceStep(span: number, count = 5): number {
  if (!(span > 0)) return 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/** Tick values covering [min, max] at a round step. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const step = niceStep(max - min, count);
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Math.round(v * 1e9) / 1e9);
  return ticks;
}

/** The score axis: from 0 to a round value above the highest score, at least 10, at most 100. */
export function scoreAxis(values: readonly number[]): [number, number] {
  const top = Math.max(0, ...values.filter(Number.isFinite));
  const step = niceStep(Math.max(top, 10), 5);
  return [0, Math.min(100, Math.max(10, Math.ceil((top * 1.1) / step) * step))];
}

/** A chart's time window in seconds (uPlot's unit): the last `days` days up to `now`. */
export function timeWindow(days: number, now: number): [number, number] {
  return [Math.floor((now - days * 86_400_000) / 1000), Math.ceil(now / 1000)];
}

/** Widths of horizontal bars for values, against the largest (or a given maximum); zero stays zero. */
export function barWidths(values: readonly number[], width: number, max = Math.max(0, ...values)): number[] {
  if (!(max > 0)) return values.map(() => 0);
  return values.map((v) => (v > 0 ? Math.max(2, (Math.min(v, max) / max) * width) : 0));
}
