// Which signals get a clip, and which clip they join: a tier-1 or tier-2 signal with an id,
// on an element that does not have its clips for today yet, opens a clip that is cut AFTER_MS
// later; signals until then join it (up to MAX_SIGNALS). Pure: the caller brings the time and
// the timer.
import { AFTER_MS } from './buffer.ts';
import type { ClipSignal } from './host.ts';
import { CLIP_TYPES } from './tiers.ts';

/** Signal ids one clip may name (the contract's limit). */
export const MAX_SIGNALS = 50;

export interface PendingClip { first: number; page: string; ids: string[] }

export class ClipPlan {
  #pending: PendingClip | null = null;
  #full: Set<string>;

  constructor(fullElements: unknown) {
    this.#full = new Set(Array.isArray(fullElements) ? fullElements.filter((s): s is string => typeof s === 'string') : []);
  }

  /** A new clip to cut at `first + AFTER_MS`, or null (joined the open one, or not wanted). */
  add(signal: ClipSignal, now: number): PendingClip | null {
    if (!signal.id || !CLIP_TYPES.has(signal.type) || (signal.element && this.#full.has(signal.element))) return null;
    const open = this.#pending;
    if (open && now <= open.first + AFTER_MS) {
      if (open.ids.length < MAX_SIGNALS && !open.ids.includes(signal.id)) open.ids.push(signal.id);
      return null;
    }
    this.#pending = { first: now, page: signal.page, ids: [signal.id] };
    return this.#pending;
  }

  /** The clip's time is up: later signals open a new one. */
  close(clip: PendingClip) {
    if (this.#pending === clip) this.#pending = null;
  }
}
