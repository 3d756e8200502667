// Filters shared by the heatmaps, elements and journeys: device class and period, kept in the
// address so a view can be shared. They map onto the API's `device`, `from` and `to`.
import { DEVICE_CLASSES, VIEWPORTS, type DeviceClass } from '../layout/heatmap.ts';

export const RANGES = { '30d': 'Last 30 days', '7d': 'Last 7 days', '24h': 'Last 24 hours' } as const;
export type Range = keyof typeof RANGES;
const RANGE_MS: Record<Range, number> = { '30d': 30 * 86_400_000, '7d': 7 * 86_400_000, '24h': 86_400_000 };

export const asDevice = (v: string | null): DeviceClass => (DEVICE_CLASSES.includes(v as DeviceClass) ? v as DeviceClass : 'desktop');
export const asRange = (v: string | null): Range => (v && v in RANGES ? v as Range : '30d');

/**
 * The API's window parameter: `from` as an ISO instant, for every period. Sent for the default
 * 30 days too, because the routes' own defaults differ (heatmaps 30 days, elements 7, the
 * friction map no lower bound) and the period must mean the same on every block.
 * No `to`: the window then runs up to the server's now, and a browser clock running ahead
 * cannot make `to` a time in the future (which the API refuses).
 */
export function rangeQuery(range: Range, now = Date.now()): { from: string } {
  return { from: new Date(now - RANGE_MS[range]).toISOString() };
}

/** Device class buttons; with `onAll`, an "All devices" button first (device null). */
export function DevicePicker({ device, onChange, onAll }: { device: DeviceClass | null; onChange(d: DeviceClass): void; onAll?: () => void }) {
  return (
    <div class="segmented" role="group" aria-label="Device class">
      {onAll && <button type="button" aria-pressed={device === null} onClick={onAll}>All devices</button>}
      {DEVICE_CLASSES.map((d) => <button key={d} type="button" aria-pressed={device === d} data-device={d} onClick={() => onChange(d)}>{VIEWPORTS[d].name}</button>)}
    </div>
  );
}

export function RangePicker({ range, onChange }: { range: Range; onChange(r: Range): void }) {
  return (
    <label class="inline">
      <span>Period</span>
      <select value={range} onChange={(e) => onChange(e.currentTarget.value as Range)}>
        {(Object.keys(RANGES) as Range[]).map((r) => <option key={r} value={r}>{RANGES[r]}</option>)}
      </select>
    </label>
  );
}
