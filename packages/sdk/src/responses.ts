// Whether the page answered a click or a submit (DOMAIN.md section 2, "Reading the rules
// precisely"). An answer is a change in the element's relevant area (inside it; inside its
// closest form, dialog, landmark or section, or the page when it has none; in what it names
// with aria-controls; in a live region, alert, status, dialog or popover anywhere) or a
// page-wide one: a navigation starting (`beforeunload`, which a download starts with too), a
// URL, focus or scroll change, a native dialog, a form reset, a validation bubble. Not an
// answer: a change to a node that was changing on its own just before the click (a clock, a
// ticker), or anything after the user pressed or typed elsewhere (they moved on). Changes are
// numbered, so one made by the page's own click handler in the click's millisecond still
// comes after it. Nothing here reads text or values.
import { listen } from './dom.ts';

const AREA = 'form,dialog,main,nav,header,footer,aside,section,search,[role=dialog],[role=alertdialog],[role=main],[role=navigation],[role=banner],[role=contentinfo],[role=complementary],[role=region],[role=form],[role=search]';
const ANYWHERE = '[aria-live]:not([aria-live=off]),[role=alert],[role=status],dialog,[role=dialog],[role=alertdialog],[popover]';
/** A node that changed on its own this long before a click was already changing. */
const LOOKBACK_MS = 2000;
/** A change this soon after a press or key may answer it: not "on its own". */
const CAUSED_MS = 2000;
/** Kept at least this long (longer waits are not the defaults), within a bound on entries. */
const KEEP_MS = 15000;

/**
 * One change: its number, time, node (null: page-wide) and the node's last change on its own
 * before it; or (`i`) a press or key of the user's, on that target.
 */
interface Change { s: number; t: number; n: Element | null; p?: number; i?: Node }
interface Mark { s: number; t: number; u: string }

export type Responses = ReturnType<typeof watchResponses>;

export function watchResponses(win: Window, doc: Document) {
  let seq = 0;
  let input = -1e15;
  let log: Change[] = [];
  const ownChange = new WeakMap<Node, number>();
  const marks = new WeakMap<object, Mark>();

  const add = (n: Element | null, i?: Node) => {
    const t = Date.now();
    log.push({ s: ++seq, t, n, p: n ? ownChange.get(n) : 0, i });
    if (n && t - input > CAUSED_MS) ownChange.set(n, t);
    if (log.length > 2000) log = log.filter((c) => t - c.t <= KEEP_MS).slice(-1500);
  };
  const take = (records: MutationRecord[]) => {
    for (const r of records) add(r.target.nodeType === 1 ? r.target as Element : r.target.parentElement);
  };
  const observer = new MutationObserver(take);
  observer.observe(doc.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });

  // A stepper that sets an input's value changes no attribute: the value setter says it did.
  const proto = (win as Window & typeof globalThis).HTMLInputElement?.prototype;
  const value = proto && Object.getOwnPropertyDescriptor(proto, 'value');
  const setter = value?.set && function (this: HTMLInputElement, v: string) {
    value.set!.call(this, v);
    add(this);
  };
  if (setter) Object.defineProperty(proto, 'value', { ...value, set: setter });

  const offs = [
    listen(win, ['pointerdown', 'keydown'], (e) => {
      input = Date.now();
      const target = e.target as Node;
      add(null, target.nodeType ? target : doc);
    }),
    listen(win, ['scroll', 'focusin', 'blur', 'popstate', 'hashchange', 'beforeunload', 'input', 'change', 'reset', 'invalid', 'toggle'], () => add(null)),
  ];

  return {
    /** Remembers the moment of `key` (a click, a submit); only what follows it can answer it. */
    mark(key: object) {
      if (marks.has(key)) return;
      take(observer.takeRecords()); // changes made before it (on the press) come first
      input = Date.now();
      marks.set(key, { s: seq, t: input, u: win.location.href });
    },
    /** Whether anything answered `key` on or next to `el` until `until`. */
    responded(key: object, el: Element, until: number): boolean {
      take(observer.takeRecords());
      const m = marks.get(key);
      if (!m) return false;
      if (win.location.href !== m.u) return true;
      const box = el.closest(AREA) ?? doc.documentElement;
      const named = (el.getAttribute('aria-controls') ?? '').split(/\s+/).map((id) => id && doc.getElementById(id));
      // Once the user presses or types elsewhere, what changes is that input's doing.
      const next = log.find((c) => c.s > m.s && c.i && !el.contains(c.i))?.s ?? Infinity;
      return log.some(({ s, t, n, p, i }) => s > m.s && s < next && t <= until && !i && (!n || (!(p! >= m.t - LOOKBACK_MS)
        && (el.contains(n) || box.contains(n) || !!n.closest(ANYWHERE) || named.some((c) => c && c.contains(n))))));
    },
    stop() {
      observer.disconnect();
      offs.forEach((off) => off());
      if (setter && Object.getOwnPropertyDescriptor(proto, 'value')?.set === setter) Object.defineProperty(proto, 'value', value);
    },
  };
}
