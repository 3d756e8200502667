// form_abandonment: >= `min_fields` fields of a form interacted with (a value changed), then
// the page left (unload or SPA route change) without that form being submitted.
import { isField, listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function formAbandonment(ctx: Context, s: Settings): Detector {
  const { doc } = ctx;
  let touched = new Map<HTMLFormElement, Set<Element>>();

  const onInput = (e: Event) => {
    const field = e.target as Element;
    const form = isField(field) ? field.form : null;
    if (!form) return;
    const fields = touched.get(form) ?? new Set<Element>();
    touched.set(form, fields.add(field));
  };
  const onSubmit = (e: Event) => {
    touched.delete(e.target as HTMLFormElement);
  };

  const unlisten = [listen(doc, ['input', 'change'], onInput), listen(doc, ['submit'], onSubmit)];
  return {
    leave() {
      for (const [form, fields] of touched) {
        if (fields.size >= s.min_fields && !ctx.ignored(form)) ctx.emit({ type: 'form_abandonment', el: form, confidence: 1, count: fields.size });
      }
      touched = new Map();
    },
    stop: () => unlisten.forEach((off) => off()),
  };
}
