// Ids and where they live: a 32-hex session id, renewed after 30 minutes without activity,
// and an anonymous visitor id that persists across sessions (not in cookieless mode).
// First-party storage only; no cookies. Storage that throws (private modes) falls back to memory.

export const SESSION_IDLE_MS = 30 * 60 * 1000;
const PREFIX = 'mallard_';

export function randomHex(bytes: number): string {
  const values = new Uint8Array(bytes);
  crypto.getRandomValues(values);
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface KeyValue { get(name: string): string | null; set(name: string, value: string): void }

export function storage(pick: () => Storage): KeyValue {
  const memory = new Map<string, string>();
  const safe = <T>(run: (s: Storage) => T, fallback: () => T): T => {
    try { return run(pick()); } catch { return fallback(); }
  };
  return {
    get: (name) => safe((s) => s.getItem(PREFIX + name), () => memory.get(name) ?? null),
    set: (name, value) => safe((s) => s.setItem(PREFIX + name, value), () => { memory.set(name, value); }),
  };
}

export class Identity {
  #session: { id: string; last: number } | null;

  #store: KeyValue;
  #visitors: KeyValue | null;

  constructor(store: KeyValue, visitors: KeyValue | null) {
    this.#store = store;
    this.#visitors = visitors;
    try { this.#session = JSON.parse(store.get('session') ?? 'null'); } catch { this.#session = null; }
  }

  /** The session id as of `now`, and whether it was just started; marks activity. */
  touch(now: number): { sid: string; started: boolean } {
    let started = false;
    if (!this.#session || !/^[0-9a-f]{32}$/.test(this.#session.id) || now - this.#session.last > SESSION_IDLE_MS) {
      this.#session = { id: randomHex(16), last: now };
      started = true;
    }
    this.#session.last = Math.max(this.#session.last, now);
    this.#store.set('session', JSON.stringify(this.#session));
    return { sid: this.#session.id, started };
  }

  visitorId(): string | undefined {
    if (!this.#visitors) return undefined;
    let vid = this.#visitors.get('vid');
    if (!vid || !/^[0-9a-f]{32}$/.test(vid)) {
      vid = randomHex(16);
      this.#visitors.set('vid', vid);
    }
    return vid;
  }
}
