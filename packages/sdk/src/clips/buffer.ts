// The rolling recording: rrweb events in segments, each beginning with a checkout (the Meta
// event before a full snapshot, taken every CHECKOUT_MS while the page changes). Old segments
// are dropped as soon as no clip can need them, so about 25 s (at most ~30 s) is held; a clip
// is cut from the newest segment that began at or before its start, since a replay needs a
// full snapshot to apply the increments to. Pure: times come from the events and the caller.

/** An rrweb event, as far as the buffer looks into it. */
export interface RecordedEvent { type: number; timestamp: number; data: unknown }

/** rrweb's EventType.Meta: the first event of every (full snapshot) checkout. */
export const META = 4;
export const FULL_SNAPSHOT = 2;
export const CHECKOUT_MS = 10_000;
/** How far a clip reaches back before its first signal, and on after it. */
export const BEFORE_MS = 10_000;
export const AFTER_MS = 5_000;
/** Events held at most (the contract takes 50,000 per clip). */
export const MAX_EVENTS = 40_000;

interface Segment { start: number; events: RecordedEvent[] }

export interface Cut { events: RecordedEvent[]; startedAt: number; endedAt: number }

export class ClipBuffer {
  #segments: Segment[] = [];
  #count = 0;

  /** Adds an event; false when the buffer overflowed and was emptied (the caller takes a new checkout). */
  add(event: RecordedEvent): boolean {
    if (event.type === META) this.#segments.push({ start: event.timestamp, events: [] });
    const last = this.#segments[this.#segments.length - 1];
    // Increments without a full snapshot before them cannot be replayed.
    if (!last) return true;
    last.events.push(event);
    this.#count++;
    this.#prune(event.timestamp);
    if (this.#count > MAX_EVENTS) {
      this.clear();
      return false;
    }
    return true;
  }

  /** Drops the oldest segments while the next one already covers any clip still to be cut. */
  #prune(now: number) {
    const keepFrom = now - BEFORE_MS - AFTER_MS;
    while ((this.#segments.length > 1 && this.#segments[1].start <= keepFrom) || (this.#count > MAX_EVENTS && this.#segments.length > 1)) {
      this.#count -= this.#segments.shift()!.events.length;
    }
  }

  clear() {
    this.#segments = [];
    this.#count = 0;
  }

  get size() { return this.#count; }
  /** Segment start times, oldest first (for tests and the benchmark). */
  get starts() { return this.#segments.map((s) => s.start); }
  get events(): RecordedEvent[] { return this.#segments.flatMap((s) => s.events); }

  /**
   * The events for a clip of [from, to]: from the newest checkout at or before `from` (or the
   * oldest held, when recording began later) up to `to`. `startedAt` is `from`, or the first
   * event when that is later; the events before it are the full snapshot the replay starts from.
   */
  cut(from: number, to: number): Cut | null {
    let first = 0;
    this.#segments.forEach((s, i) => { if (s.start <= from) first = i; });
    const events = this.#segments.slice(first).flatMap((s) => s.events).filter((e) => e.timestamp <= to);
    if (!events.some((e) => e.type === FULL_SNAPSHOT)) return null;
    return { events, startedAt: Math.max(from, events[0].timestamp), endedAt: to };
  }
}
