// form_friction: the same field fails validation >= `failures` times within `window_ms` (an
// invalid event, or aria-invalid turning true), or is focused and left >= `leaves` times
// without a change within `window_ms`. Confidence 0.8. One failed check can raise both an
// invalid event and aria-invalid: failures of a field less than a second apart count once.
import { isField, listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function formFriction(ctx: Context, s: Settings): Detector {
  const { win, doc } = ctx;
  const failures = new WeakMap<Element, number[]>();
  const leaves = new WeakMap<Element, number[]>();
  const changed = new WeakSet<Element>();

  const count = (map: WeakMap<Element, number[]>, field: Element, threshold: number) => {
    const t = ctx.now();
    const times = (map.get(field) ?? []).filter((at) => t - at <= s.window_ms);
    if (map === failures && t - times[times.length - 1] < 1000) return;
    times.push(t);
    map.set(field, times);
    // A field form_validation_loop was reported for is its, for that signal's window.
    if (times.length < threshold || ctx.ignored(field) || (ctx.claims.get(field) ?? 0) > t) return;
    map.delete(field);
    ctx.emit({ type: 'form_friction', el: field, confidence: 0.8, count: times.length });
  };

  const onInvalid = (e: Event) => {
    if (e.target instanceof Element) count(failures, e.target, s.failures);
  };
  const onFocus = (e: Event) => {
    if (isField(e.target as Element)) changed.delete(e.target as Element);
  };
  const onInput = (e: Event) => {
    changed.add(e.target as Element);
  };
  const onBlur = (e: Event) => {
    const field = e.target as Element;
    if (isField(field) && !changed.has(field)) count(leaves, field, s.leaves);
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target as Element;
      if (el.getAttribute('aria-invalid') === 'true' && r.oldValue !== 'true') count(failures, el, s.failures);
    }
  });
  observer.observe(doc.documentElement, { subtree: true, attributes: true, attributeFilter: ['aria-invalid'], attributeOldValue: true });

  const unlisten = [listen(doc, ['invalid'], onInvalid), listen(doc, ['focusin'], onFocus), listen(doc, ['input', 'change'], onInput), listen(doc, ['focusout'], onBlur)];
  return {
    stop() {
      observer.disconnect();
      unlisten.forEach((off) => off());
    },
  };
}
