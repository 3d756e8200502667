// The optional filters of the behaviour reads (heatmaps, flows, the friction map): a device
// class and a time window. A window ends at `to` (default: open, up to now) and starts at
// `from` (default: the route's own span before the end, or no start on routes without one).
// Given instants must lie within the last 90 days, the most `days` allows anywhere.
import { Type } from '@sinclair/typebox';
import { invalidInput } from './errors.ts';
import { DAY_MS } from './time.ts';

export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const WINDOW_MAX_DAYS = 90;

/** The query parameters, spread into a route's querystring schema. */
export const ReadFilterQuery = {
  device: Type.Optional(Type.Union(DEVICE_TYPES.map((d) => Type.Literal(d)), { description: 'Only sessions on this device class' })),
  from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: `ISO 8601 instant, within the last ${WINDOW_MAX_DAYS} days; the window starts here (inclusive)` })),
  to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant, after from and not in the future; the window ends here (exclusive)' })),
};

export interface ReadFilterInput { device?: DeviceType; from?: string; to?: string }

/** Where a read looks: null bounds are open. */
export interface ReadWindow { from: number | null; to: number | null }

/** An ISO 8601 instant in epoch ms, or 400 invalid_input naming the field. */
export function parseInstant(value: string | undefined, field: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidInput(field, 'must be an ISO 8601 time');
  return ms;
}

/**
 * The window of a read at `now`. `defaultSpanMs` is how far back the route looks when no
 * `from` is given (the heatmaps' 30 days, the flows' `days`); null means no lower bound.
 */
export function readWindow(input: ReadFilterInput, now: number, defaultSpanMs: number | null): ReadWindow {
  const earliest = now - WINDOW_MAX_DAYS * DAY_MS;
  const from = parseInstant(input.from, 'from');
  const to = parseInstant(input.to, 'to');
  if (from !== null && from < earliest) throw invalidInput('from', `must be within the last ${WINDOW_MAX_DAYS} days`);
  if (to !== null && to < earliest) throw invalidInput('to', `must be within the last ${WINDOW_MAX_DAYS} days`);
  if (to !== null && to > now) throw invalidInput('to', 'must not be in the future');
  if (from !== null && to !== null && from >= to) throw invalidInput('to', 'must be after from');
  if (from !== null || defaultSpanMs === null) return { from, to };
  return { from: Math.max(earliest, (to ?? now) - defaultSpanMs), to };
}
