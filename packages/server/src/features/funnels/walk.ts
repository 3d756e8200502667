// Pure: the funnel walk. Given each session's step hits in order (pageviews and track events,
// by time then id) and its signals, how far it went through the ordered steps and what it met
// on the way. No I/O here: funnel-sessions.ts loads the data, funnel-report.ts shapes the answer.
//
// Semantics (docs/api.md "Funnels"):
// - A session's attempt starts at a hit of step 1; step k+1 counts only at a hit after the hit
//   that counted for step k (other events in between are fine), no later than window_ms after
//   the attempt's start (inclusive). Steps out of order do not count; a skipped step ends the
//   attempt there. A hit counts for one step only, so `/checkout*` then `/checkout/complete`
//   needs two pageviews.
// - Of a session's attempts (one per hit of step 1) the deepest counts, the earliest on a tie:
//   each session enters a step at most once, however often it repeats it.
// - Friction at step k: the session's signals from its entry into step k until its entry into
//   step k+1 (exclusive), or, when it went no further, until the attempt's window ends
//   (inclusive); on a page step only those on the step's page(s).
import { matchesPagePattern } from '../../domain/page-pattern.ts';

export type StepKind = 'page' | 'event';
/** A step: a page pattern (starts with /, `*` wildcards) or a custom event name. */
export interface FunnelStep { step: string; kind: StepKind }

/** Something a session did that may match a step: a pageview of `value` or a track event named `value`, on `page`. */
export interface Hit { at: number; kind: StepKind; value: string; page: string }
export interface SignalHit { at: number; type: string; page: string }
export interface FunnelSession { hits: readonly Hit[]; signals: readonly SignalHit[] }

export function stepMatches(step: FunnelStep, hit: Hit): boolean {
  if (step.kind !== hit.kind) return false;
  return step.kind === 'page' ? matchesPagePattern(step.step, hit.value) : step.step === hit.value;
}

/** The hits that counted for steps 1..n of the session's deepest attempt (empty: it never entered step 1). */
export function walkSession(steps: readonly FunnelStep[], hits: readonly Hit[], windowMs: number): Hit[] {
  let best: Hit[] = [];
  let lastStart = Number.NaN;
  for (let i = 0; i < hits.length && best.length < steps.length; i++) {
    // A start at the same instant as the previous one cannot reach further.
    if (hits[i].at === lastStart || !stepMatches(steps[0], hits[i])) continue;
    lastStart = hits[i].at;
    const path = [hits[i]];
    const deadline = hits[i].at + windowMs;
    for (let j = i + 1; j < hits.length && path.length < steps.length && hits[j].at <= deadline; j++) {
      if (stepMatches(steps[path.length], hits[j])) path.push(hits[j]);
    }
    if (path.length > best.length) best = path;
  }
  return best;
}

export interface StepTally {
  entered: number;
  converted: number;
  msToNext: number[];
  signals: Map<string, number>;
  droppedAfterFriction: number;
  /** The pages where sessions entered the step (for an event step: the page of its track event). */
  pages: Set<string>;
}

export const newTally = (steps: readonly FunnelStep[]): StepTally[] =>
  steps.map(() => ({ entered: 0, converted: 0, msToNext: [], signals: new Map(), droppedAfterFriction: 0, pages: new Set() }));

/**
 * Adds one session to the tally. `isFriction` says which signal types count as friction (the
 * caller passes tier 1 and 2, as the friction map uses).
 */
export function addSession(tally: StepTally[], steps: readonly FunnelStep[], session: FunnelSession, windowMs: number, isFriction: (type: string) => boolean) {
  const path = walkSession(steps, session.hits, windowMs);
  if (path.length === 0) return;
  const deadline = path[0].at + windowMs;
  for (let k = 0; k < path.length; k++) {
    const t = tally[k];
    const last = k === steps.length - 1;
    const next = path[k + 1];
    t.entered++;
    t.pages.add(path[k].page);
    if (last || next) t.converted++;
    if (next) t.msToNext.push(next.at - path[k].at);
    let metFriction = false;
    for (const s of session.signals) {
      if (s.at < path[k].at || (next ? s.at >= next.at : s.at > deadline)) continue;
      if (steps[k].kind === 'page' && !matchesPagePattern(steps[k].step, s.page)) continue;
      if (!isFriction(s.type)) continue;
      metFriction = true;
      t.signals.set(s.type, (t.signals.get(s.type) ?? 0) + 1);
    }
    if (!last && !next && metFriction) t.droppedAfterFriction++;
  }
}

/** The middle value (the mean of the two middle ones for an even count, rounded), or null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/** converted / entered to 3 decimals; 0 when nobody entered. */
export const rate = (converted: number, entered: number) => (entered === 0 ? 0 : Math.round((converted / entered) * 1000) / 1000);

/** The `top` most frequent signal types, most first (ties by name), as a type -> count map. */
export function topSignals(counts: ReadonlyMap<string, number>, top: number): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, top));
}
