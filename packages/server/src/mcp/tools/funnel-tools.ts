// get_funnel: an ad-hoc funnel (steps as a comma-separated string or an array) or a saved one
// (funnel_id), over the same operation as GET /v1/query/funnel; one line per step.
import { funnelOp } from '../../features/funnels/operations.ts';
import { defineTool } from '../tool-kit.ts';
import { countsLine, lines, plural } from '../text.ts';

/** "4m 5s", "1h 2m", "850ms". */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`;

export const funnelTool = defineTool({
  name: 'get_funnel',
  operation: funnelOp,
  title: 'Funnel with its friction',
  description: 'A funnel (steps or a saved funnel_id): how many went on at each step, how fast, and the friction where they dropped.',
  argumentNotes: {
    steps: '2-10 page patterns (/...) or event names',
    funnel_id: 'a saved funnel, instead of steps', window_minutes: 'minutes from step 1 to the last',
  },
  links: [{ at: 'steps[].friction.issues[]', kind: 'issue' }],
  summarize: (d) => lines(
    `${d.funnel ? `${d.funnel.name}: ` : ''}${plural(d.entered, 'session')} entered, ${d.completed} completed (${percent(d.entered ? d.completed / d.entered : 0)}), steps within ${d.window_minutes} min, ${d.window_from.slice(0, 10)} to ${d.window_to.slice(0, 10)}${d.sampled ? ` (the ${d.sessions_analyzed.toLocaleString('en-US')} most recent sessions that entered step 1; more entered)` : ''}:`,
    d.steps.map((s, i) => {
      const last = i === d.steps.length - 1;
      const went = last ? '' : `, ${percent(s.conversion_rate)} went on${s.median_ms_to_next === null ? '' : ` (median ${duration(s.median_ms_to_next)})`}`;
      const signals = Object.keys(s.friction.signals).length ? `; friction: ${countsLine(s.friction.signals)}` : '';
      const dropped = s.friction.dropped_after_friction ? `; ${s.friction.dropped_after_friction} of ${s.entered - s.converted} who dropped met it first` : '';
      const issues = s.friction.issues.length ? `; issues: ${s.friction.issues.slice(0, 2).map((x) => `[${x.severity}] ${x.title}`).join(', ')}` : '';
      return `${i + 1}. ${s.step}: ${s.entered} entered${went}${signals}${dropped}${issues}`;
    }),
  ),
});

export const FUNNEL_TOOLS = [funnelTool];
