// What every detector gets and gives back. Detectors see the DOM and the clock through the
// context, and report raw signals; the client adds selector, label, page, time and ids.

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
}

/** One physical click, shared by the click detectors so one click feeds at most one signal. */
export interface Click {
  t: number;
  el: Element;
  x: number;
  y: number;
  interactive: boolean;
  looks: boolean;
  /** Set by the rage detector: the burst this click joined. */
  burst?: { clicks: Click[] };
  /** A modifier key, a new-tab or download link, a text selection on the element, or editable text. */
  excluded: boolean;
}

export interface Detector {
  click?(click: Click): void;
  /** The page is being left (unload or SPA route change). */
  leave?(): void;
  /** A pageview was recorded. */
  pageview?(page: string, t: number): void;
  stop(): void;
}

export type Settings = Record<string, number>;
