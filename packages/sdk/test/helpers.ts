// A detector context over happy-dom's window that collects what detectors emit.
import type { Click, Context, RawSignal } from '../src/detectors/types.ts';
import { isIgnored } from '../src/dom.ts';
import { watchResponses } from '../src/responses.ts';
import { watchRequests } from '../src/requests.ts';

/** `endpoint`: the SDK's own server, whose requests are not the page's. */
export function makeContext(ignoreSelectors: string[] = [], endpoint = 'https://mallard.example') {
  const signals: RawSignal[] = [];
  const store = new Map<string, unknown>();
  const responses = watchResponses(window, document);
  const ctx: Context = {
    win: window,
    doc: document,
    now: () => Date.now(),
    emit: (signal) => { signals.push(signal); },
    ignored: (el) => isIgnored(el, ignoreSelectors),
    session: { get: <T>(name: string) => store.get(name) as T | undefined, set: (name, value) => { store.set(name, value); } },
    responses,
    requests: watchRequests(window, (url) => url.startsWith(`${endpoint}/v1/`)),
    claims: new WeakMap(),
  };
  return { ctx, signals, stop: () => responses.stop() };
}

export function click(el: Element, x: number, y: number, extra: Partial<Click> = {}): Click {
  return { t: Date.now(), el, x, y, interactive: true, looks: true, excluded: false, ...extra };
}

/** Gives an element a layout box, which happy-dom does not compute. */
export function place(el: Element, left: number, top: number, width: number, height: number) {
  el.getBoundingClientRect = () => ({ left, top, width, height, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) }) as DOMRect;
}

export function html(markup: string) {
  document.body.innerHTML = markup;
}
