// What every detector gets and gives back. Detectors see the DOM and the clock through the
// context, and report raw signals; the client adds selector, label, page, time and ids.
import type { Responses } from '../responses.ts';
import type { RequestListener } from '../requests.ts';

export interface RawSignal {
  type: string;
  el?: Element | null;
  /** A label that is not the element's own (an error message); redacted by the client. */
  label?: string;
  confidence?: number;
  hx?: number; hy?: number; vx?: number; vy?: number;
  count?: number;
  duration_ms?: number;
  /** The page the signal belongs to, when it is not the current one. */
  page?: string;
}

export interface Context {
  win: Window;
  doc: Document;
  now(): number;
  emit(signal: RawSignal): void;
  ignored(el: Element): boolean;
  /** Per-session storage for detectors that must remember across page loads. */
  session: { get<T>(name: string): T | undefined; set(name: string, value: unknown): void };
  /** What answered a click or a submit (shared by the click detectors). */
  responses: Responses;
  /** Hears the page's requests (not the SDK's own); returns what stops listening. */
  requests(listener: RequestListener): () => void;
  /** Fields a form_validation_loop was reported for, until when: form_friction stays quiet on them. */
  claims: WeakMap<Element, number>;
}

/** One physical click, shared by the click detectors so one click feeds at most one signal. */
export interface Click {
  t: number;
  el: Element;
  x: number;
  y: number;
  interactive: boolean;
  looks: boolean;
  /** A click on a form's submit control: dead_end_submit's, not dead_click's. */
  submits?: boolean;
  /** Set by the rage detector: the burst this click joined. */
  burst?: { clicks: Click[] };
  /** A modifier key, a new-tab or download link, a text selection on the element, editable text, a drag. */
  excluded: boolean;
}

export interface Detector {
  click?(click: Click): void;
  /** The page is being left (unload or SPA route change). */
  leave?(): void;
  /** A pageview was recorded. */
  pageview?(page: string, t: number): void;
  /** The URL changed through history (pushState, replaceState, popstate); `from` is the previous one. */
  route?(from: string): void;
  /** A friction signal was recorded on this page view. */
  friction?(): void;
  stop(): void;
}

export type Settings = Record<string, number>;
