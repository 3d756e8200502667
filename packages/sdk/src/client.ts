// The client: reads the site's remote config, decides whether to record (sampling, Do Not
// Track, consent), runs the detectors, records pageviews (full loads and SPA routes) and
// hands events to the transport.
import { resolveSettings, type InitOptions, type RemoteConfig, type Settings } from './config.ts';
import { clickTarget, disabledControl, EDITABLE, isField, isIgnored, labelOf, listen } from './dom.ts';
import { Identity, randomHex, storage, type KeyValue } from './identity.ts';
import { cleanText } from './redact.ts';
import { selectorOf } from './selector.ts';
import { Transport, type WireEvent } from './transport.ts';
import { watchResponses, type Responses } from './responses.ts';
import { watchRequests } from './requests.ts';
import type { Click, Context, Detector, RawSignal } from './detectors/types.ts';
import type { StartClips } from './clips/host.ts';
import { rageClick } from './detectors/rage-click.ts';
import { layoutShifts } from './detectors/layout-shift.ts';
import { deadClick } from './detectors/dead-click.ts';
import { deadEndSubmit } from './detectors/dead-end-submit.ts';
import { disabledElementAttempt } from './detectors/disabled-element.ts';
import { formRestart } from './detectors/form-restart.ts';
import { formValidationLoop } from './detectors/form-validation-loop.ts';
import { formFriction } from './detectors/form-friction.ts';
import { errorEncounter } from './detectors/error-encounter.ts';
import { formAbandonment } from './detectors/form-abandonment.ts';
import { uTurnNavigation } from './detectors/u-turn.ts';
import { thrashCursor } from './detectors/thrash-cursor.ts';
import { jerkyScrolling } from './detectors/jerky-scrolling.ts';
import { reloadRetry } from './detectors/reload-retry.ts';
import { loadAbandonment } from './detectors/load-abandonment.ts';
import { queryThrashing } from './detectors/query-thrashing.ts';

export const VERSION = typeof __MALLARD_VERSION__ === 'string' ? __MALLARD_VERSION__ : 'dev';
declare const __MALLARD_VERSION__: string | undefined;

const CONFIG_TIMEOUT_MS = 3000;
/** A press and release this far apart is a drag, not a click. */
const DRAG_PX = 10;
const SIGNAL_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** `id`: the id of the signal event sent to the server (what a clip names). */
export interface FrictionSignal { type: string; page: string; element: string; label: string; confidence: number; id: string }
export type FrictionListener = (signal: FrictionSignal) => void;

export class Client {
  #win: Window;
  #transport: Transport;
  #settings: Settings;
  #identity: Identity | null = null;
  #session: KeyValue;
  #detectors: Detector[] = [];
  #listeners = new Set<FrictionListener>();
  #cleanups: (() => void)[] = [];
  #page = '';
  #state: 'loading' | 'waiting' | 'running' | 'off' | 'done' = 'loading';
  #consent: boolean | null;
  #remote: RemoteConfig = {};
  /** Stops the clips recorder while it runs. */
  #clips: (() => void) | null = null;
  readonly endpoint: string;
  /** Settles once the remote config was applied (or given up on). */
  readonly ready: Promise<void>;

  #options: InitOptions;

  constructor(options: InitOptions, win: Window = window) {
    this.#options = options;
    this.#win = win;
    this.endpoint = (options.endpoint ?? win.location.origin).replace(/\/+$/, '');
    this.#consent = options.consent === 'granted' ? true : null;
    this.#settings = resolveSettings(options);
    this.#session = storage(() => win.sessionStorage);
    this.#transport = new Transport({
      url: `${this.endpoint}/v1/ingest`, key: options.key, env: options.environment, appVersion: options.appVersion,
      fetch: win.fetch, win,
    });
    this.ready = this.#load();
  }

  async #load() {
    if (this.#options.remoteConfig !== false) {
      const url = `${this.endpoint}/v1/sdk-config?key=${encodeURIComponent(this.#options.key)}${this.#options.environment ? `&env=${encodeURIComponent(this.#options.environment)}` : ''}`;
      try {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), CONFIG_TIMEOUT_MS);
        const res = await this.#win.fetch(url, { credentials: 'omit', signal: controller.signal });
        clearTimeout(timer);
        if (res.ok) this.#remote = ((await res.json()) as { data?: RemoteConfig }).data ?? {};
      } catch {
        // Unreachable server: record with the page's own options; delivery retries later.
      }
    }
    this.#settings = resolveSettings(this.#options, this.#remote);
    // Not when consent was withdrawn meanwhile (or the client shut down).
    if (this.#state === 'loading') this.#decide();
  }

  #decide() {
    const s = this.#settings;
    const nav = this.#win.navigator as Navigator & { globalPrivacyControl?: boolean };
    const dnt = nav.doNotTrack === '1' || (this.#win as Window & { doNotTrack?: string }).doNotTrack === '1' || nav.globalPrivacyControl === true;
    if ((s.respectDnt && dnt) || this.#consent === false) return this.#off();
    if (s.requireConsent && this.#consent !== true) {
      this.#state = 'waiting';
      return;
    }
    const local = storage(() => this.#win.localStorage);
    this.#identity = new Identity(s.cookieless ? this.#session : local, s.cookieless ? null : local);
    const { sid } = this.#identity.touch(Date.now());
    // Sampling is per session: a session is recorded whole or not at all.
    if (parseInt(sid.slice(0, 8), 16) / 2 ** 32 >= s.sampleRate) return this.#off();
    this.#state = 'running';
    this.#transport.open = true;
    this.#startDetectors();
    this.#watchPages();
    this.#pageview(this.#win.document.referrer);
    this.#loadClips();
  }

  /** The clips chunk, only when the site's config turns clips on: a script from the endpoint, started once loaded. */
  #loadClips() {
    const clips = this.#remote.clips;
    if (clips?.enabled !== true || this.#options.clips === false) return;
    const win = this.#win as Window & { MallardClips?: StartClips };
    const start = () => {
      if (this.#state !== 'running' || this.#clips || !win.MallardClips) return;
      try {
        this.#clips = win.MallardClips({
          endpoint: this.endpoint, key: this.#options.key, env: this.#options.environment, config: clips, pageGroups: this.#remote.page_groups,
          sid: () => this.#sid(), vid: () => this.#identity?.visitorId(),
          flush: () => this.#transport.flush(), on: (listener) => this.onFriction(listener),
        });
      } catch { /* a broken recorder never breaks detection */ }
    };
    if (win.MallardClips) return start();
    const script = win.document.createElement('script');
    script.src = `${this.endpoint}/sdk/clips-${VERSION}.js`;
    script.async = true;
    script.onload = start;
    win.document.head.append(script);
  }

  #off() {
    this.#state = 'off';
    this.#clips?.();
    this.#clips = null;
    this.#transport.clear();
    this.#stopDetectors();
    this.#cleanups.forEach((cleanup) => cleanup());
    this.#cleanups = [];
  }

  setConsent(granted: boolean) {
    this.#consent = granted;
    // Withdrawn consent: recording stops and what is queued is dropped, not sent. Given (again):
    // recording starts (afresh) once the remote config was read.
    if (!granted) this.#off();
    else void this.ready.then(() => { if (this.#state === 'waiting' || this.#state === 'off') this.#decide(); });
  }

  #context(responses: Responses): Context {
    const win = this.#win;
    const own = (url: string) => url.startsWith(`${this.endpoint}/v1/ingest`) || url.startsWith(`${this.endpoint}/v1/sdk-config`);
    return {
      win, doc: win.document, now: () => Date.now(),
      emit: (signal) => this.#record(signal),
      ignored: (el) => isIgnored(el, this.#settings.ignoreSelectors),
      session: {
        get: <T>(name: string) => this.#sessionState()[name] as T | undefined,
        set: (name, value) => this.#remember(name, value),
      },
      responses,
      requests: watchRequests(win, own),
      claims: new WeakMap(),
    };
  }

  /** Keeps `value` in this session's state in the tab's session storage. */
  #remember(name: string, value: unknown) {
    const state = this.#sessionState();
    state[name] = value;
    this.#session.set('state', JSON.stringify({ sid: this.#sid(), ...state }));
  }

  #sessionState(): Record<string, unknown> {
    try {
      const { sid, ...state } = JSON.parse(this.#session.get('state') ?? '{}') as Record<string, unknown>;
      return sid === this.#sid() ? state : {};
    } catch {
      return {};
    }
  }

  #sid(): string { return this.#identity?.touch(Date.now()).sid ?? ''; }

  #startDetectors() {
    const responses = watchResponses(this.#win, this.#win.document);
    const ctx = this.#context(responses);
    const signals = this.#settings.signals;
    const on = (type: string) => (signals[type].enabled ? signals[type] : null);
    const shift = on('layout_shift_rage');
    const shifts = shift && layoutShifts(ctx, shift);
    // Bursts are followed for rage_click and for layout_shift_rage, with rage_click's thresholds.
    const bursts = on('rage_click') || shift ? signals.rage_click.clicks : 0;
    const build: [string, (s: Record<string, number>) => Detector][] = [
      ['rage_click', (s) => rageClick(ctx, s, !!on('rage_click'), shifts?.shifted)],
      ['dead_click', (s) => deadClick(ctx, s, bursts, !!on('dead_end_submit'))],
      ['dead_end_submit', (s) => deadEndSubmit(ctx, s, bursts)],
      ['disabled_element_attempt', (s) => disabledElementAttempt(ctx, s)],
      ['form_restart', (s) => formRestart(ctx, s)],
      // Before form_friction: on the same failure, the loop claims the field first.
      ['form_validation_loop', (s) => formValidationLoop(ctx, s)],
      ['form_friction', (s) => formFriction(ctx, s)],
      ['error_encounter', (s) => errorEncounter(ctx, s)],
      ['form_abandonment', (s) => formAbandonment(ctx, s)],
      ['u_turn_navigation', (s) => uTurnNavigation(ctx, s)],
      ['thrash_cursor', (s) => thrashCursor(ctx, s)],
      ['jerky_scrolling', (s) => jerkyScrolling(ctx, s)],
      ['reload_retry', (s) => reloadRetry(ctx, s)],
      ['load_abandonment', (s) => loadAbandonment(ctx, s)],
      ['query_thrashing', (s) => queryThrashing(ctx, s)],
    ];
    for (const [type, make] of build) {
      const s = type === 'rage_click' ? (bursts ? signals.rage_click : null) : on(type);
      if (s) this.#detectors.push(make(s));
    }
    let down: { x: number; y: number } | null = null;
    const onDown = (e: PointerEvent) => { down = { x: e.clientX, y: e.clientY }; };
    const onClick = (e: MouseEvent) => {
      const target = e.target;
      // detail 0: a click from the keyboard or a script, with no position.
      if (!(target instanceof Element) || e.button || !e.detail) return;
      if (disabledControl(target, e.clientX, e.clientY) || ctx.ignored(target)) return;
      const { el, interactive, looks } = clickTarget(target, this.#win);
      const link = el.closest('a');
      const selection = this.#win.getSelection?.();
      // Selecting text (a double or triple click on it), clicks in editable text and drags are
      // no frustration; a selection elsewhere on the page, or one that merely spans an element
      // without text (a picture next to a caption), does not hide one.
      const excluded = !!(e.ctrlKey || e.metaKey || e.shiftKey || e.altKey
        || (link && (link.hasAttribute('download') || (link.target && link.target !== '_self')))
        || (selection?.toString() && (isField(target) || (selection.getRangeAt(0).intersectsNode(target) && target.textContent?.trim())))
        || target.closest(EDITABLE)
        || (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > DRAG_PX));
      down = null;
      const control = el as HTMLButtonElement;
      const submits = !!control.form && /^(?:submit|image)$/.test(control.type);
      const click: Click = { t: Date.now(), el, x: e.clientX, y: e.clientY, interactive, looks, submits, excluded };
      for (const d of this.#detectors) d.click?.(click);
    };
    this.#detectors.push(
      { stop: listen(this.#win.document, ['pointerdown'], onDown) },
      { stop: listen(this.#win.document, ['click'], onClick) },
      { stop: () => { responses.stop(); shifts?.stop(); } },
    );
  }

  #stopDetectors() {
    for (const d of this.#detectors) d.stop();
    this.#detectors = [];
  }

  #watchPages() {
    const win = this.#win;
    let href = win.location.href;
    const onRoute = () => {
      const from = href;
      href = win.location.href;
      if (from !== href) for (const d of this.#detectors) d.route?.(from);
      if (win.location.pathname === this.#page) return;
      const previous = this.#page;
      for (const d of this.#detectors) d.leave?.();
      this.#pageview(undefined, previous);
    };
    const history = win.history;
    for (const method of ['pushState', 'replaceState'] as const) {
      const original = history[method];
      const patched = function (this: History, ...args: Parameters<History['pushState']>) {
        original.apply(this, args);
        onRoute();
      };
      history[method] = patched;
      this.#cleanups.push(() => { if (history[method] === patched) history[method] = original; });
    }
    const onHide = () => {
      for (const d of this.#detectors) d.leave?.();
      this.#transport.exit();
    };
    const onVisibility = () => { if (win.document.visibilityState === 'hidden') this.#transport.exit(); };
    // Back (or Forward) into a page kept in the back-forward cache runs no script again: the
    // page is shown anew, so it is a pageview, coming from the page the session was last on.
    const onShow = (e: PageTransitionEvent) => {
      if (e.persisted) this.#pageview(undefined, this.#sessionState().last as string | undefined);
    };
    this.#cleanups.push(
      listen(win, ['popstate'], onRoute, false), listen(win, ['pagehide'], onHide, false), listen(win, ['pageshow'], onShow, false),
      listen(win.document, ['visibilitychange'], onVisibility, false),
    );
  }

  #pageview(referrer?: string, previousPage?: string) {
    const page = this.#win.location.pathname;
    this.#page = page;
    const event: Record<string, unknown> = { type: 'pageview' };
    if (previousPage) event.referrer_page = previousPage;
    else if (referrer) {
      try {
        const ref = new URL(referrer);
        // Only the referring site's origin leaves the browser, or the path of our own page.
        if (ref.origin === this.#win.location.origin) event.referrer_page = ref.pathname;
        else event.referrer = ref.origin;
      } catch { /* not a URL */ }
    }
    this.#push(event);
    this.#remember('last', page);
    const t = Date.now();
    for (const d of this.#detectors) d.pageview?.(page, t);
  }

  /** Queues an event; returns its id. */
  #push(fields: Record<string, unknown>, page = this.#page): string {
    if (this.#state !== 'running' || !this.#identity) return '';
    const now = Date.now();
    const { sid, started } = this.#identity.touch(now);
    // A session that restarts after 30 idle minutes begins with the page the user is on.
    if (started && fields.type !== 'pageview') this.#push({ type: 'pageview' });
    const event = { ...fields, ts: now, id: randomHex(8), page } as WireEvent;
    this.#transport.push(sid, this.#identity.visitorId(), event);
    return event.id;
  }

  /** A detected or manual signal: selector and label made here, then queued and announced. */
  #record(signal: RawSignal) {
    if (this.#state !== 'running') return;
    if (signal.el && isIgnored(signal.el, this.#settings.ignoreSelectors)) return;
    const { type, el, label, confidence = 1, page = this.#page, ...rest } = signal;
    const element = el ? selectorOf(el) : '';
    const text = label !== undefined ? cleanText(label) : el ? labelOf(el) : '';
    const fields: Record<string, unknown> = { type: 'signal', signal_type: type, confidence, ...rest };
    if (element) fields.element = element;
    if (text) fields.label = text;
    const id = this.#push(fields, page);
    for (const d of this.#detectors) d.friction?.();
    const friction: FrictionSignal = { type, page, element, label: text, confidence, id };
    this.#listeners.forEach((listener) => {
      try { listener(friction); } catch { /* a host callback never breaks detection */ }
    });
  }

  track(name: string, props?: Record<string, unknown>) {
    if (typeof name === 'string' && name) this.#push(props ? { type: 'track', name, props } : { type: 'track', name });
  }

  identify(userRef: string) {
    if (typeof userRef === 'string' && userRef) this.#push({ type: 'identify', user_ref: userRef.slice(0, 256) });
  }

  signal(type: string, meta: { element?: Element | string; label?: string; confidence?: number } = {}) {
    if (!SIGNAL_TYPE.test(type) || this.#settings.signals[type]?.enabled === false) return;
    const el = typeof meta.element === 'string' ? this.#win.document.querySelector(meta.element) : meta.element;
    this.#record({ type, el, label: meta.label, confidence: meta.confidence });
  }

  onFriction(listener: FrictionListener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  async flush() {
    await this.ready;
    await this.#transport.flush();
  }

  shutdown() {
    for (const d of this.#detectors) d.leave?.();
    this.#transport.exit();
    this.#off();
    this.#state = 'done';
    this.#transport.stop();
    this.#listeners.clear();
  }
}
