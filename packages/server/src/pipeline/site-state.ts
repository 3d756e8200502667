// Pure: the site's state word, what set it, and the one sentence every face shows
// (DOMAIN.md section 3). The overall score sets the state, but it is never milder than what is
// firing: an active critical alert makes it at least `alert`, any other active alert or a page
// at `flustered` or worse at least `watching`. So no face says "everything normal" beside a
// firing alert.
import type { AlertSeverity, DuckState } from '../domain/statuses.ts';
import { DUCK_STATES } from '../domain/statuses.ts';
import { DUCK_LABELS, duckState } from './scoring.ts';

/** What set the site's state: its overall score, an active alert, or a page's own state. */
export const DUCK_REASONS = ['score', 'alert', 'page'] as const;
export type DuckReason = (typeof DUCK_REASONS)[number];

export interface SiteStateInput {
  overallScore: number;
  /** Scored pages (stale ones included), any order. */
  pages: readonly { page: string; score: number; duck_state: string }[];
  /** Severities of the site's active alerts (fired, acknowledged, investigating). */
  activeAlerts: readonly AlertSeverity[];
}

export interface SiteState { duck_state: DuckState; duck_label: string; duck_reason: DuckReason; headline: string }

const rank = (state: DuckState) => DUCK_STATES.indexOf(state);
const FLUSTERED = rank('flustered');
/** The pages a headline names at most. */
const HEADLINE_PAGES = 2;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function siteState(input: SiteStateInput): SiteState {
  if (input.pages.length === 0) {
    return {
      duck_state: 'calm', duck_label: 'no data yet', duck_reason: 'score',
      headline: 'No data yet: add the Mallard SDK to the site; its pages show here after their first visits',
    };
  }
  const critical = input.activeAlerts.filter((s) => s === 'critical').length;
  const otherAlerts = input.activeAlerts.length - critical;
  const upset = [...input.pages].filter((p) => rank(p.duck_state as DuckState) >= FLUSTERED)
    .sort((a, b) => b.score - a.score || a.page.localeCompare(b.page));

  // Each candidate is a floor on the state; the highest wins, the score first on ties, then alerts.
  const byScore = duckState(input.overallScore);
  let state: DuckState = byScore;
  let reason: DuckReason = 'score';
  const raise = (floor: DuckState, why: DuckReason) => {
    if (rank(floor) > rank(state)) { state = floor; reason = why; }
  };
  if (critical > 0) raise('alert', 'alert');
  if (otherAlerts > 0) raise('watching', 'alert');
  if (upset.length > 0) raise('watching', 'page');

  const parts: string[] = [];
  if (critical > 0) parts.push(`${plural(critical, 'critical alert')} firing`);
  if (otherAlerts > 0) parts.push(`${plural(otherAlerts, critical > 0 ? 'other alert' : 'alert')} firing`);
  for (const p of upset.slice(0, HEADLINE_PAGES)) parts.push(`${p.page} ${p.duck_state} (${p.score})`);
  if (upset.length > HEADLINE_PAGES) parts.push(`${plural(upset.length - HEADLINE_PAGES, 'more page')} flustered or worse`);
  parts.push(`overall score ${input.overallScore} of 100`);
  if (input.activeAlerts.length === 0 && upset.length === 0) parts.push('no alerts firing');
  return { duck_state: state, duck_label: DUCK_LABELS[state], duck_reason: reason, headline: `${state}: ${parts.join('; ')}` };
}
