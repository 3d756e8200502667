// Precision and recall per detector over the corpus: for each type, what the labels expect and
// what the SDK sent, session by session; a session's true positives are the smaller of the two.
import { DEFAULT_SIGNALS } from '../../src/config.ts';
import type { Session } from './sessions.ts';

export interface Outcome { session: Session; got: Record<string, number> }

export interface Row { detector: string; sessions: number; expected: number; detected: number; precision: number; recall: number }

export function scoreTable(outcomes: Outcome[]): Row[] {
  const row = (detector: string, sessions: number, types: string[], only?: (o: Outcome) => boolean): Row => {
    let expected = 0;
    let detected = 0;
    let hits = 0;
    for (const o of outcomes.filter((x) => !only || only(x))) {
      for (const type of types) {
        const e = o.session.expect[type] ?? 0;
        const d = o.got[type] ?? 0;
        expected += e;
        detected += d;
        hits += Math.min(e, d);
      }
    }
    // Nothing expected and nothing found is perfect on both counts.
    return { detector, sessions, expected, detected, precision: detected ? hits / detected : 1, recall: expected ? hits / expected : 1 };
  };
  const types = Object.keys(DEFAULT_SIGNALS);
  const benign = (o: Outcome) => o.session.group === 'benign';
  return [
    ...types.map((type) => row(type, outcomes.filter((o) => o.session.group === type).length, [type])),
    row('benign (no signal allowed)', outcomes.filter(benign).length, types, benign),
  ];
}

export function formatTable(rows: Row[]): string {
  const f = (n: number) => n.toFixed(2);
  return [
    '| detector | sessions | expected | detected | precision | recall |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.detector} | ${r.sessions} | ${r.expected} | ${r.detected} | ${f(r.precision)} | ${f(r.recall)} |`),
  ].join('\n');
}

/** What differs from the label: missed signals, unexpected ones, and unmatched details. */
export function mismatches(o: Outcome, details: string[]): string[] {
  const problems: string[] = [];
  for (const type of new Set([...Object.keys(o.session.expect), ...Object.keys(o.got)])) {
    const e = o.session.expect[type] ?? 0;
    const d = o.got[type] ?? 0;
    if (d < e) problems.push(`missed ${e - d} ${type}`);
    if (d > e) problems.push(`unexpected ${d - e} ${type}`);
  }
  return [...problems, ...details];
}
