// get_funnel: an ad-hoc funnel (steps as a comma-separated string or an array) or a saved one
// (funnel_id), over the same operation as GET /v1/query/funnel; one line per step.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../domain/errors.ts';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { SiteIdParam } from '../../domain/schema-parts.ts';
import { funnelReport } from '../../features/funnels/funnel-report.ts';
import { Funnel, SavedFunnel, StepList, WindowMinutes } from '../../features/funnels/schemas.ts';
import { savedFunnelReport } from '../../features/funnels/service.ts';
import { DEFAULT_WINDOW_MINUTES } from '../../features/funnels/steps.ts';
import { defineTool } from '../tool-kit.ts';
import { countsLine, lines, plural } from '../text.ts';

export const GetFunnelInput = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  steps: Type.Optional(Type.Union([
    Type.String({ minLength: 1, maxLength: 5200 }),
    StepList,
  ], { description: '2 to 10 ordered steps, as a comma-separated string or an array: a step starting with / is a page pattern (* matches any run of characters), anything else a custom event name. Give steps or funnel_id' })),
  funnel_id: Type.Optional(Type.String({ maxLength: 64, description: 'A saved funnel (GET /v1/manage/funnels): its steps and window are used. Give steps or funnel_id' })),
  window_minutes: Type.Optional(Type.Integer({ ...WindowMinutes, description: `${WindowMinutes.description}; with funnel_id, the saved funnel's window unless given` })),
  ...ReadFilterQuery,
});

const FunnelAnswer = Type.Object({ ...Funnel.properties, funnel: Type.Optional(SavedFunnel) });

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
  title: 'Funnel with its friction',
  description: 'A funnel (steps or a saved funnel_id): how many went on at each step, how fast, and the friction where they dropped.',
  argumentNotes: {
    steps: '2-10 page patterns (/...) or event names',
    funnel_id: 'a saved funnel, instead of steps', window_minutes: 'minutes from step 1 to the last',
  },
  input: { query: GetFunnelInput },
  output: FunnelAnswer,
  links: [{ at: 'steps[].friction.issues[]', kind: 'issue' }],
  run: async (ctx, input): Promise<Funnel & { funnel?: SavedFunnel }> => {
    const filters = { device: input.device, from: input.from, to: input.to };
    if ((input.steps === undefined) === (input.funnel_id === undefined)) {
      throw new AppError('invalid_input', 'steps: give either steps or funnel_id', { field: 'steps', reason: 'give either steps or funnel_id' });
    }
    if (input.funnel_id !== undefined) {
      const saved = await savedFunnelReport({ ctx, input: { id: input.funnel_id, ...filters } });
      if (input.window_minutes === undefined || input.window_minutes === saved.window_minutes) return saved;
      const report = await funnelReport({ ctx, input: { site_id: saved.funnel.site_id, steps: saved.funnel.steps, window_minutes: input.window_minutes, ...filters } });
      return { funnel: saved.funnel, ...report };
    }
    return funnelReport({ ctx, input: { site_id: input.site_id, steps: input.steps!, window_minutes: input.window_minutes ?? DEFAULT_WINDOW_MINUTES, ...filters } });
  },
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
