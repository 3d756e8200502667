// The click signals a heatmap is drawn from: rage, dead and disabled clicks on one page,
// within the read's window (by default the last 30 days) and, when asked, from sessions on
// one device class. Both heatmaps read them newest first and keep only the most recent.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';
import { HEATMAP_SIGNAL_TYPES } from '../../domain/signals.ts';
import { DAY_MS } from '../../domain/time.ts';
import { readWindow, type DeviceType, type ReadFilterInput, type ReadWindow } from '../../domain/read-window.ts';

export const HEATMAP_WINDOW_MS = 30 * DAY_MS;

export interface HeatmapFilters { window: ReadWindow; device?: DeviceType }

/** The window and device of a heatmap request, checked; call before reading anything. */
export function heatmapFilters(input: ReadFilterInput, now: number): HeatmapFilters {
  return { window: readWindow(input, now, HEATMAP_WINDOW_MS), device: input.device };
}

export function heatmapSignals(db: Kysely<Database>, siteId: string, page: string, { window, device }: HeatmapFilters) {
  let query = db.selectFrom('signals')
    .where('site_id', '=', siteId).where('page', '=', page).where('signal_type', 'in', HEATMAP_SIGNAL_TYPES);
  if (window.from !== null) query = query.where('occurred_at', '>=', window.from);
  if (window.to !== null) query = query.where('occurred_at', '<', window.to);
  if (device) {
    query = query.where((eb) => eb.exists(eb.selectFrom('sessions').select('sessions.id')
      .whereRef('sessions.site_id', '=', 'signals.site_id').whereRef('sessions.sid', '=', 'signals.sid')
      .where('sessions.device_type', '=', device)));
  }
  return query.orderBy('occurred_at', 'desc').orderBy('id', 'desc');
}
