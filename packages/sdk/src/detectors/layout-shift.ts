// layout_shift_rage: a rage burst whose first click came within `after_shift_ms` after a layout
// shift (a `layout-shift` entry without recent input, value >= `min_shift`) that moved the
// clicked element, an ancestor or something inside it. The rage detector asks `shifted` when
// it decides a burst, and reports layout_shift_rage instead of that rage_click. Confidence 1.0.
import type { Context, Settings } from './types.ts';

interface Shift { t: number; nodes: Node[] }
interface ShiftEntry extends PerformanceEntry { value: number; hadRecentInput: boolean; sources?: { node?: Node | null }[] }

export function layoutShifts(ctx: Context, s: Settings) {
  let shifts: Shift[] = [];
  const perf = ctx.win.performance;
  let observer: PerformanceObserver | undefined;
  try {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as ShiftEntry[]) {
        const nodes = (e.sources ?? []).map((source) => source.node).filter((n): n is Node => !!n);
        // Its time on the clock clicks are timed with (Date.now()); the last ten are kept.
        if (!e.hadRecentInput && e.value >= s.min_shift && nodes.length) shifts = [...shifts.slice(-9), { t: ctx.now() - (perf.now() - e.startTime), nodes }];
      }
    });
    observer.observe({ type: 'layout-shift', buffered: true });
  } catch {
    // A browser without layout-shift entries: no shifts, plain rage clicks.
  }
  return {
    /** Whether a shift in the `after_shift_ms` before `t` moved `el`. */
    shifted: (el: Element, t: number) => shifts.some((shift) => t >= shift.t && t - shift.t <= s.after_shift_ms
      && shift.nodes.some((n) => n.contains(el) || el.contains(n))),
    stop: () => observer?.disconnect(),
  };
}
