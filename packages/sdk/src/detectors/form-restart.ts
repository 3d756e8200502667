// form_restart: after >= `min_fields` fields of a form were filled, they are cleared (by the
// user, a reset, or the page) and the user starts filling the form's first field again, in
// the same page view. Only whether a field is empty is ever read.
import { isEmpty, isField, listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

export function formRestart(ctx: Context, s: Settings): Detector {
  const { doc } = ctx;
  let filled = new WeakMap<HTMLFormElement, Set<Field>>();
  let wasEmpty = new WeakSet<Field>();

  const firstField = (form: HTMLFormElement) => [...form.elements].find(isField);

  const onFocus = (e: Event) => {
    if (isField(e.target as Element) && isEmpty(e.target as Field)) wasEmpty.add(e.target as Field);
  };

  const onInput = (e: Event) => {
    const field = e.target as Field;
    const form = isField(field) ? field.form : null;
    if (!form) return;
    if (isEmpty(field)) {
      wasEmpty.add(field);
      return;
    }
    const set = filled.get(form) ?? new Set<Field>();
    filled.set(form, set);
    const restarted = field === firstField(form) && wasEmpty.has(field) && set.size >= s.min_fields
      && [...set].every((f) => f === field || isEmpty(f));
    wasEmpty.delete(field);
    if (restarted) {
      set.clear();
      if (!ctx.ignored(form)) ctx.emit({ type: 'form_restart', el: form, confidence: 1 });
    }
    set.add(field);
  };

  const unlisten = [listen(doc, ['focusin'], onFocus), listen(doc, ['input', 'change'], onInput)];
  return {
    pageview() {
      filled = new WeakMap();
      wasEmpty = new WeakSet();
    },
    stop: () => unlisten.forEach((off) => off()),
  };
}
