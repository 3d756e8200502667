// disabled_element_attempt: >= `presses` presses within `window_ms` on a control that is
// disabled, aria-disabled or inert. Browsers send no click to a disabled control, so presses
// are read from pointerdown, hit-testing under the pointer when the target is not the control.
import { disabledControl, listen, pointOf, type Point } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function disabledElementAttempt(ctx: Context, s: Settings): Detector {
  const { win, doc } = ctx;
  let control: Element | null = null;
  let presses: { t: number; point: Point }[] = [];

  const find = (e: PointerEvent): Element | null => {
    const target = e.target instanceof Element ? disabledControl(e.target) : null;
    const under = target ? null : doc.elementFromPoint?.(e.clientX, e.clientY);
    return target ?? (under ? disabledControl(under) : null);
  };

  const onDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    const el = find(e);
    if (!el || ctx.ignored(el)) return;
    const t = ctx.now();
    if (el !== control) presses = [];
    control = el;
    presses = presses.filter((p) => t - p.t <= s.window_ms);
    presses.push({ t, point: pointOf(el, e.clientX, e.clientY, win) });
    if (presses.length < s.presses) return;
    const mean = (key: keyof Point) => Math.round(presses.reduce((sum, p) => sum + (p.point[key] ?? 0), 0) / presses.length);
    ctx.emit({
      type: 'disabled_element_attempt', el, confidence: 1,
      ...(presses[0].point.hx === undefined ? {} : { hx: mean('hx'), hy: mean('hy') }), vx: mean('vx'), vy: mean('vy'),
      count: presses.length, duration_ms: t - presses[0].t,
    });
    presses = [];
  };

  return { stop: listen(doc, ['pointerdown'], onDown) };
}
