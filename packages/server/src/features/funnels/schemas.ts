// The funnel routes' inputs and answers; the services and the MCP tool take and return the same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { IsoTime, Name, OneOf, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';
import { SEVERITIES } from '../../domain/statuses.ts';
import { DEFAULT_WINDOW_MINUTES, FUNNEL_SESSION_CAP, MAX_EVENT_NAME, MAX_STEPS, MAX_WINDOW_MINUTES, MIN_STEPS, MIN_WINDOW_MINUTES } from './steps.ts';

const STEP_WORDS = 'a step starting with / is a page pattern (* matches any run of characters, e.g. /products/*), anything else a custom event name sent with track()';

export const WindowMinutes = Type.Integer({
  minimum: MIN_WINDOW_MINUTES, maximum: MAX_WINDOW_MINUTES,
  description: `Minutes after entering step 1 within which the later steps must happen (${MIN_WINDOW_MINUTES} to ${MAX_WINDOW_MINUTES}, default ${DEFAULT_WINDOW_MINUTES})`,
});

export const FunnelQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  steps: Type.String({
    minLength: 1, maxLength: MAX_STEPS * (MAX_EVENT_NAME + 1) * 4,
    description: `${MIN_STEPS} to ${MAX_STEPS} ordered steps, comma-separated; ${STEP_WORDS}`,
    examples: ['/cart,/checkout,/checkout/complete'],
  }),
  window_minutes: Type.Integer({ ...WindowMinutes, default: DEFAULT_WINDOW_MINUTES }),
  ...ReadFilterQuery,
});
export type FunnelQuery = Static<typeof FunnelQuery>;

const FunnelIssue = Type.Object({ id: Uuid, title: Type.String(), severity: OneOf(SEVERITIES), page: Type.String() });
const FunnelStepRow = Type.Object({
  step: Type.String({ description: 'The step as matched (an exact page normalized as ingest stores pages)' }),
  kind: OneOf(['page', 'event'], 'page: a page pattern; event: a custom event name'),
  entered: Type.Integer({ description: 'Sessions that reached this step in order' }),
  converted: Type.Integer({ description: 'Of those, sessions that went on to the next step (on the last step: entered)' }),
  conversion_rate: Type.Number({ description: 'converted / entered, 0 to 1 (3 decimals; 0 when nobody entered)' }),
  median_ms_to_next: Type.Union([Type.Integer(), Type.Null()], { description: 'Median time from this step to the next among those who converted; null on the last step or when none did' }),
  friction: Type.Object({
    signals: Type.Record(Type.String(), Type.Integer(), { description: 'Up to 5 most frequent tier-1 and tier-2 signal types met at this step by the sessions that entered it (type -> count)' }),
    issues: Type.Array(FunnelIssue, { description: "Up to 5 of the site's open issues on this step's page(s), highest priority first" }),
    dropped_after_friction: Type.Integer({ description: 'Of those who entered and did not go on, how many met a tier-1 or tier-2 signal at this step first' }),
  }),
});

export const Funnel = Type.Object({
  site_id: Uuid,
  window_minutes: Type.Integer(),
  window_from: IsoTime,
  window_to: IsoTime,
  steps: Type.Array(FunnelStepRow),
  entered: Type.Integer({ description: 'Sessions that entered step 1' }),
  completed: Type.Integer({ description: 'Sessions that reached the last step' }),
  sessions_analyzed: Type.Integer({ description: `Sessions with a hit of step 1 in the window that the answer walked: all of them, or the ${FUNNEL_SESSION_CAP.toLocaleString('en-US')} most recent when more entered` }),
  sampled: Type.Boolean({ description: `true when more than ${FUNNEL_SESSION_CAP.toLocaleString('en-US')} sessions entered step 1 in the window and the answer counts the most recent ${FUNNEL_SESSION_CAP.toLocaleString('en-US')} of them; false: every entrant counted (exact)` }),
});
export type Funnel = Static<typeof Funnel>;

// Saved funnels.
export const StepList = Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
  minItems: MIN_STEPS, maxItems: MAX_STEPS, description: `${MIN_STEPS} to ${MAX_STEPS} ordered steps; ${STEP_WORDS}`,
});

export const SavedFunnel = Type.Object({
  id: Uuid, site_id: Uuid, name: Type.String(), steps: Type.Array(Type.String()), window_minutes: Type.Integer(),
  created_at: IsoTime, updated_at: IsoTime,
});
export type SavedFunnel = Static<typeof SavedFunnel>;

export const CreateFunnelBody = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  name: Name,
  steps: StepList,
  window_minutes: Type.Optional(WindowMinutes),
}, { additionalProperties: false, examples: [{ name: 'Checkout', steps: ['/cart', '/checkout', 'checkout_completed'], window_minutes: 60 }] });
export type CreateFunnelBody = Static<typeof CreateFunnelBody>;

export const UpdateFunnelBody = Type.Object({
  name: Type.Optional(Name),
  steps: Type.Optional(StepList),
  window_minutes: Type.Optional(WindowMinutes),
}, { additionalProperties: false, minProperties: 1, examples: [{ window_minutes: 120 }] });
export type UpdateFunnelBody = Static<typeof UpdateFunnelBody>;

export const FunnelParams = Type.Object({ id: Type.String({ description: 'The saved funnel id (a UUID)' }) });
export const FunnelList = Type.Object({ funnels: Type.Array(SavedFunnel) });
