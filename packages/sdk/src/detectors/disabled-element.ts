// disabled_element_attempt: >= `presses` presses within `window_ms` on a control that is
// disabled, aria-disabled or inert. Browsers send no click to a disabled control, so presses
// are read from pointerdown, hit-testing under the pointer when the target is not the control
// (and matching inert controls by their box: browsers send their presses to an ancestor).
import { disabledControl, listen, pointOf, type Point } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function disabledElementAttempt(ctx: Context, s: Settings): Detector {
  const { win, doc } = ctx;
  let control: Element | null = null;
  let presses: { t: number; point: Point }[] = [];

  const find = ({ target, clientX: x, clientY: y }: PointerEvent): Element | null | undefined => {
    const found = target instanceof Element ? disabledControl(target, x, y) : null;
    const under = found ? null : doc.elementFromPoint?.(x, y);
    return found ?? (under ? disabledControl(under, x, y) : null);
  };

  const onDown = (e: PointerEvent) => {
    if (e.button) return;
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
