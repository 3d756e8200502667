// The Funnels screen's address and inputs as GET /v1/query/funnel's parameters. Steps are typed
// one per line or comma-separated; a step starting with / is a page pattern, anything else a
// custom event name (the API's rule).

export const MIN_STEPS = 2;
export const MAX_STEPS = 10;
export const DEFAULT_WINDOW_MINUTES = 60;

/** The steps of a typed list: split on commas and new lines, trimmed, empty ones dropped. */
export function parseSteps(text: string): string[] {
  return text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
}

/** Why a list of steps cannot be asked for, or null when it can. */
export function stepsProblem(steps: string[]): string | null {
  if (steps.length < MIN_STEPS) return `A funnel needs at least ${MIN_STEPS} steps.`;
  if (steps.length > MAX_STEPS) return `A funnel has at most ${MAX_STEPS} steps.`;
  return null;
}

/** Where a step's sessions are: the sessions search pre-filtered on the step's page (and a signal). */
export function stepSessionsQuery(step: string, signalType: string | null): Record<string, string> | null {
  if (!step.startsWith('/')) return null;
  return { page: step, ...(signalType ? { signal_type: signalType } : {}) };
}

/** Each step's share of the funnel's entries, for its bar (0 to 1). */
export function stepShares(entered: number[]): number[] {
  const first = entered[0] ?? 0;
  return entered.map((n) => (first > 0 ? n / first : 0));
}
