// What the detectors ask of an element: is it ignored, disabled, interactive, a form field;
// its label; where a click fell on it. Nothing here reads a form value.
import { cleanText, LABEL_MAX } from './redact.ts';

export const IGNORE_ATTRIBUTE = 'data-mallard-ignore';
export const IGNORE_CLASS = 'mallard-ignore';

export function isIgnored(el: Element, selectors: readonly string[]): boolean {
  if (el.closest(`[${IGNORE_ATTRIBUTE}],.${IGNORE_CLASS}`)) return true;
  return selectors.some((selector) => {
    try { return !!el.closest(selector); } catch { return false; }
  });
}

const INTERACTIVE = 'a[href],button,summary,select,[role=button],[role=link],[role=menuitem],[role=tab],[role=checkbox],[role=switch],[role=option],[onclick],input[type=button],input[type=submit],input[type=reset],input[type=image]';
const CONTROL = 'button,input,select,textarea,[role=button],[role=link],[role=menuitem],[role=tab],a[href]';
const TEXT_INPUT = /^(?:text|email|search|tel|url|password|number|date|datetime-local|month|week|time)$/;

/**
 * The control a press on `target` at (x, y) is meant for, when it is disabled, aria-disabled
 * or inert. Browsers do not hit-test inert elements: a press on one goes to an ancestor, so
 * inert controls inside the target are matched by their box.
 */
export function disabledControl(target: Element, x: number, y: number): Element | null | undefined {
  const inert = target.closest('[inert]');
  if (inert) return target.closest(CONTROL) ?? inert;
  const aria = target.closest('[aria-disabled="true"]');
  if (aria) return aria;
  const control = target.closest('button,input,select,textarea');
  return control && (control.matches(':disabled') || control.closest('fieldset[disabled]')) ? control
    : [...target.querySelectorAll('[inert],[inert] *')].find((el) => {
      const r = el.matches(CONTROL) && el.getBoundingClientRect();
      return r && x >= r.left && x < r.right && y >= r.top && y < r.bottom;
    });
}

/** The interactive element (link, button, ARIA role, onclick) `target` is or is inside of. */
export const interactiveOf = (target: Element) => target.closest(INTERACTIVE);

/**
 * The element a click acts on and whether it truly is interactive (1) or only looks it (0.6):
 * a pointer cursor, or text styled like a link (underlined).
 */
export function clickTarget(target: Element, win: Window): { el: Element; interactive: boolean; looks: boolean } {
  const interactive = interactiveOf(target);
  if (interactive) return { el: interactive, interactive: true, looks: true };
  let looks = false;
  for (let el: Element | null = target, depth = 0; el && depth < 3 && !looks; el = el.parentElement, depth++) {
    const style = win.getComputedStyle(el);
    looks = style.cursor === 'pointer' || /underline/.test(style.textDecorationLine);
  }
  return { el: target, interactive: false, looks };
}

/** Text-like fields and selects whose emptiness (never content) the form detectors follow. */
export function isField(el: Element | null): el is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement {
  if (!el) return false;
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && TEXT_INPUT.test((el as HTMLInputElement).type || 'text');
}

export function isEmpty(field: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement): boolean {
  return field.value === '';
}

export const EDITABLE = '[contenteditable]';

/** Visible text (no script, style or hidden text), never an editable region's; '' for a container. */
function textOf(el: Element | null | undefined): string {
  const text = el && !el.closest(EDITABLE) && !el.querySelector(EDITABLE) ? (el as HTMLElement).innerText ?? '' : '';
  return text.length > 2 * LABEL_MAX ? '' : text;
}

/**
 * aria-label, labelled-by text, a field's label or placeholder, a button input's caption, a
 * control's short visible text, title or alt: redacted, 80 characters. Never a field's value,
 * typed (contenteditable) text, or the text of the page or a large container.
 */
export function labelOf(el: Element): string {
  const doc = el.ownerDocument;
  const ids = el.getAttribute('aria-labelledby');
  const labelledBy = ids ? ids.split(/\s+/).map((id) => doc.getElementById(id)?.textContent ?? '').join(' ') : '';
  const tag = el.tagName;
  let own = '';
  if (/^(?:INPUT|SELECT|TEXTAREA)$/.test(tag)) {
    own = /^(?:button|submit|reset)$/.test((el as HTMLInputElement).type) ? (el as HTMLInputElement).value
      : textOf((el as HTMLInputElement).labels?.[0]) || (el as HTMLInputElement).placeholder;
  } else if (!/^(?:FORM|BODY|HTML)$/.test(tag)) { // a form's text is all its fields' labels: not a label
    own = textOf(el);
  }
  for (const text of [el.getAttribute('aria-label'), labelledBy, own, el.getAttribute('title'), el.getAttribute('alt')]) {
    const clean = cleanText(text);
    if (clean) return clean;
  }
  return '';
}

export interface Point { hx?: number; hy?: number; vx: number; vy: number }

const scale = (v: number, size: number) => Math.max(0, Math.min(1000, Math.round((v / size) * 1000)));

/** Where a click fell: in the element (hx, hy) and in the viewport (vx, vy), each 0..1000. */
export function pointOf(el: Element, x: number, y: number, win: Window): Point {
  const rect = el.getBoundingClientRect();
  const point: Point = { vx: scale(x, win.innerWidth || 1), vy: scale(y, win.innerHeight || 1) };
  if (rect.width > 0 && rect.height > 0) {
    point.hx = scale(x - rect.left, rect.width);
    point.hy = scale(y - rect.top, rect.height);
  }
  return point;
}

/** Adds a listener for each event name (capture by default); returns what removes them. */
export function listen<E extends Event>(target: EventTarget, names: string[], fn: (e: E) => void, capture = true): () => void {
  for (const name of names) target.addEventListener(name, fn as EventListener, capture);
  return () => { for (const name of names) target.removeEventListener(name, fn as EventListener, capture); };
}
