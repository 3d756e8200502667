// A funnel's steps as a request gives them (a comma-separated `steps` parameter, or a saved
// funnel's array), checked the same way for every face: 2 to 10 steps, each a page pattern
// (starts with /, `*` wildcards) or a custom event name (what `track()` sends).
import { invalidInput } from '../../domain/errors.ts';
import { checkPagePattern } from '../../domain/page-pattern.ts';
import type { FunnelStep } from './walk.ts';

export const MIN_STEPS = 2;
export const MAX_STEPS = 10;
export const MAX_EVENT_NAME = 128;
/** Window bounds in minutes: one minute to seven days. */
export const MIN_WINDOW_MINUTES = 1;
export const MAX_WINDOW_MINUTES = 10_080;
export const DEFAULT_WINDOW_MINUTES = 60;
/**
 * The most sessions a funnel walks: the most recent entrants of step 1 in the window
 * (funnel-sessions.ts). The read costs about one session row per entrant: at 2,000 a computed
 * answer costs about what a 100k-signal site's uncapped one does (1,455 entrants in the bench;
 * BENCHMARKS.md, funnel), whatever the traffic.
 */
export const FUNNEL_SESSION_CAP = 2000;

/** The `steps` query parameter split at commas (each part trimmed). */
export const splitSteps = (value: string): string[] => value.split(',').map((s) => s.trim());

export function parseSteps(values: readonly string[], field = 'steps'): FunnelStep[] {
  if (values.length < MIN_STEPS || values.length > MAX_STEPS) {
    throw invalidInput(field, `must list ${MIN_STEPS} to ${MAX_STEPS} steps (got ${values.length})`);
  }
  return values.map((raw, i) => {
    const step = raw.trim();
    const which = `step ${i + 1}`;
    if (!step) throw invalidInput(field, `${which} is empty`);
    if (step.startsWith('/')) {
      try {
        return { step: checkPagePattern(step, field), kind: 'page' as const };
      } catch (error) {
        throw invalidInput(field, `${which} (${step.slice(0, 40)}) is not a usable page pattern: ${(error as { details?: { reason?: string } }).details?.reason ?? 'invalid'}`);
      }
    }
    if (step.length > MAX_EVENT_NAME) throw invalidInput(field, `${which} is an event name longer than ${MAX_EVENT_NAME} characters`);
    if (/[,\u0000-\u001f\u007f]/.test(step)) throw invalidInput(field, `${which} is an event name with a comma or a control character`);
    return { step, kind: 'event' as const };
  });
}
