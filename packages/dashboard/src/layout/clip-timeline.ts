// A clip's timeline: how long it lasts, where its signal falls on it, and the scrubber's
// mapping between time and position; and where clips sit on a session's timeline. Pure: the
// clip's rrweb events come in as plain objects.

/** The parts of an rrweb event the timeline reads. */
export interface ClipEvent { type: number; timestamp: number; data?: unknown }

/**
 * A clip's events as the API sends them (the document types them as opaque JSON): those shaped
 * like rrweb events (a numeric type and timestamp), in order; anything else is dropped.
 */
export function clipEvents(raw: readonly unknown[]): (ClipEvent & Record<string, unknown>)[] {
  return raw.filter((e): e is ClipEvent & Record<string, unknown> =>
    typeof e === 'object' && e !== null && typeof (e as ClipEvent).type === 'number' && typeof (e as ClipEvent).timestamp === 'number');
}

/** rrweb's event types and incremental sources the timeline needs. */
const CUSTOM = 5;
const INCREMENTAL = 3;
const MOUSE_INTERACTION = 2;
const CLICK = 2;

/** The first and last event times and the span between them (ms); zero for no events. */
export function clipSpan(events: readonly ClipEvent[]): { start: number; end: number; duration: number } {
  if (events.length === 0) return { start: 0, end: 0, duration: 0 };
  let start = Infinity, end = -Infinity;
  for (const e of events) { start = Math.min(start, e.timestamp); end = Math.max(end, e.timestamp); }
  return { start, end, duration: end - start };
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? v as Record<string, unknown> : {});

/** Whether a custom event's payload names the signal (`id`, `signal_id` or in `signal_ids`). */
function namesSignal(payload: unknown, id: string): boolean {
  const p = obj(payload);
  return p.id === id || p.signal_id === id || (Array.isArray(p.signal_ids) && p.signal_ids.includes(id));
}

/**
 * When the signal happened, in ms from the clip's first event: a custom event naming the
 * signal id in the clip; else the signal's own time (`signalAt`, e.g. from the evidence
 * or the session's events) against the clip's start; else 5 s before the clip's end, the
 * moment the recorder sends a clip around. Always inside the clip.
 */
export function signalMoment(events: readonly ClipEvent[], signalId: string | undefined, clipStartedAt: number, signalAt?: number): number {
  const { start, duration } = clipSpan(events);
  const inside = (ms: number) => Math.min(duration, Math.max(0, ms));
  if (signalId) {
    const marked = events.find((e) => e.type === CUSTOM && namesSignal(obj(e.data).payload, signalId));
    if (marked) return inside(marked.timestamp - start);
  }
  if (signalAt !== undefined && Number.isFinite(signalAt)) return inside(signalAt - (events.length > 0 ? start : clipStartedAt));
  return inside(duration - 5000);
}

/**
 * Where to pulse for the signal, in the recorded page's viewport pixels: the click nearest
 * the moment (within `window` ms), or the custom event's own x, y; null when neither exists.
 */
export function signalPoint(events: readonly ClipEvent[], momentMs: number, window = 1500): { x: number; y: number } | null {
  const { start } = clipSpan(events);
  let best: { x: number; y: number; d: number } | null = null;
  for (const e of events) {
    const d = obj(e.data);
    const near = Math.abs(e.timestamp - start - momentMs);
    if (near > window) continue;
    const click = e.type === INCREMENTAL && d.source === MOUSE_INTERACTION && d.type === CLICK;
    const custom = e.type === CUSTOM ? obj(d.payload) : null;
    const at = click ? d : custom;
    if (!at || typeof at.x !== 'number' || typeof at.y !== 'number') continue;
    if (!best || near < best.d) best = { x: at.x, y: at.y, d: near };
  }
  return best && { x: best.x, y: best.y };
}

/** A time on the scrubber (ms from the clip's start) as a fraction of its length, 0..1. */
export function scrubberFraction(ms: number, duration: number): number {
  if (!(duration > 0)) return 0;
  return Math.min(1, Math.max(0, ms / duration));
}

/** Where the clip sits on its session's timeline, as fractions of the session (0..1). */
export function clipOnSession(clip: { started_at: string; ended_at: string }, session: { started_at: string; ended_at: string | null }): { from: number; to: number } {
  const s0 = Date.parse(session.started_at);
  const c0 = Date.parse(clip.started_at), c1 = Date.parse(clip.ended_at);
  const s1 = Math.max(session.ended_at ? Date.parse(session.ended_at) : c1, c1);
  const span = s1 - s0;
  if (!(span > 0)) return { from: 0, to: 1 };
  const f = (t: number) => Math.min(1, Math.max(0, (t - s0) / span));
  return { from: f(c0), to: Math.max(f(c0), f(c1)) };
}

/** The scale that fits a recorded viewport into a frame `frameWidth` wide and at most `maxHeight` high, never enlarged. */
export function fitViewport(viewport: { width: number; height: number }, frameWidth: number, maxHeight: number): number {
  if (!(viewport.width > 0 && viewport.height > 0)) return 1;
  return Math.min(1, frameWidth / viewport.width, maxHeight / viewport.height);
}
