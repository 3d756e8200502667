// form_validation_loop: failed submit attempts on one field, each followed by an edit of that
// field (submit -> error -> edit -> the same error): the `attempts`-th within `window_ms` is the
// signal. An attempt is a click on a form's submit control, Enter in one of its fields, or a
// submit (with native validation no submit event fires); it failed a field when, within a
// second, the field fires `invalid`, gets aria-invalid="true", or the error text it points to
// (aria-describedby, aria-errormessage) shows. It replaces form_friction for that field for the
// window. Only whether a message has text is read, never a field's value. Confidence 1.
import { isField, listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

const SETTLE_MS = 1000;

interface FieldState { times: number[]; edited: boolean; last: number }

export function formValidationLoop(ctx: Context, s: Settings): Detector {
  const { doc } = ctx;
  let attempt: { t: number; form: HTMLFormElement } | null = null;
  const fields = new WeakMap<Element, FieldState>();

  const fail = (field: Element) => {
    const a = attempt;
    if (!a || ctx.now() - a.t > SETTLE_MS || !isField(field) || field.form !== a.form) return;
    const f = fields.get(field) ?? { times: [], edited: true, last: 0 };
    fields.set(field, f);
    // One attempt fails a field once (invalid and aria-invalid together); the next counts after an edit.
    if (f.last === a.t || !f.edited) return;
    f.last = a.t;
    f.edited = false;
    f.times = [...f.times.filter((t) => a.t - t <= s.window_ms), a.t];
    if (f.times.length < s.attempts || ctx.ignored(field)) return;
    f.times = [];
    ctx.claims.set(field, a.t + s.window_ms);
    ctx.emit({ type: 'form_validation_loop', el: field, confidence: 1, count: s.attempts });
  };

  const start = (form: HTMLFormElement | null | undefined) => {
    if (form) attempt = { t: ctx.now(), form };
  };
  const onClick = (e: Event) => {
    const control = (e.target as Element).closest?.('button,input') as HTMLButtonElement | null;
    if (control?.form && /^(?:submit|image)$/.test(control.type)) start(control.form);
  };
  const onKey = (e: KeyboardEvent) => {
    const field = e.target as HTMLInputElement;
    if (e.key === 'Enter' && field.tagName === 'INPUT' && isField(field)) start(field.form);
  };
  const onSubmit = (e: Event) => {
    if (attempt?.form !== e.target || ctx.now() - attempt.t > SETTLE_MS) start(e.target as HTMLFormElement);
  };
  const onInput = (e: Event) => {
    const f = fields.get(e.target as Element);
    if (f) f.edited = true;
  };
  const observer = new MutationObserver((records) => {
    if (!attempt) return;
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target as Element : r.target.parentElement;
      if (!el) continue;
      if (r.attributeName) {
        if (el.getAttribute('aria-invalid') === 'true') fail(el);
        continue;
      }
      for (const field of attempt.form.elements) {
        const ids = `${field.getAttribute('aria-describedby') ?? ''} ${field.getAttribute('aria-errormessage') ?? ''}`.split(' ');
        const message = ids.map((id) => id && doc.getElementById(id)).find((m) => m && m.contains(el));
        if (message && message.textContent!.trim()) fail(field);
      }
    }
  });
  observer.observe(doc.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-invalid'] });

  const unlisten = [
    listen(doc, ['click'], onClick), listen(doc, ['keydown'], onKey), listen(doc, ['submit'], onSubmit),
    listen(doc, ['invalid'], (e) => fail(e.target as Element)), listen(doc, ['input', 'change'], onInput),
  ];
  return {
    stop() {
      observer.disconnect();
      unlisten.forEach((off) => off());
    },
  };
}
