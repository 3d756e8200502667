// The demo's friction clips and page snapshots, made without a browser: the shop's static pages
// serialized by rrweb at build time (demo-pages.ts) and synthetic pointer, click and input
// events placed where the simulated signals happened. The events are rrweb's wire format, so the
// dashboard replays them like any clip an SDK sent. Pure: no store, no clock.
import { Prng } from '../simulate/prng.ts';
import { demoSnapshots, DEMO_PAGES, type DemoSnapshots } from './demo-pages.ts';

/** rrweb's event and source numbers (its wire format, @rrweb/types). */
const EVENT = { fullSnapshot: 2, incremental: 3, meta: 4 } as const;
const SOURCE = { mouseMove: 1, mouseInteraction: 2, input: 5 } as const;
const MOUSE = { mouseUp: 0, mouseDown: 1, click: 2, focus: 5, blur: 6 } as const;

export interface RrwebEvent { type: number; data: Record<string, unknown>; timestamp: number }

export interface Viewport { width: number; height: number }

/** A stored signal, as the demo reads it back: fractions of the viewport for vx, vy. */
export interface ClipSignal {
  event_id: string;
  signal_type: string;
  element: string | null;
  vx: number | null;
  vy: number | null;
  occurred_at: number;
}

export interface DemoClip { events: RrwebEvent[]; started_at: number; ended_at: number; signal_ids: string[] }

/** Seconds of replay kept before the first signal and after the last (issue 28: 10 s and 5 s). */
export const CLIP_BEFORE_MS = 10_000;
export const CLIP_AFTER_MS = 5_000;

/** How many presses each kind of signal stands for, and whether it is typing rather than pressing. */
function gesture(signalType: string): { presses: number; typing: boolean } {
  if (signalType === 'rage_click') return { presses: 5, typing: false };
  if (signalType === 'dead_click' || signalType === 'disabled_element_attempt') return { presses: 2, typing: false };
  if (signalType.startsWith('form_')) return { presses: 1, typing: true };
  return { presses: 1, typing: false };
}

export const hasDemoPage = (page: string) => page in DEMO_PAGES;

function opening(page: string, viewport: Viewport, at: number, snapshots: DemoSnapshots): RrwebEvent[] {
  const { node } = snapshots.pages[page];
  return [
    { type: EVENT.meta, data: { href: `${snapshots.origin}${page}`, width: viewport.width, height: viewport.height }, timestamp: at },
    { type: EVENT.fullSnapshot, data: { node, initialOffset: { top: 0, left: 0 } }, timestamp: at },
  ];
}

/** The page as a snapshot upload carries it: rrweb's Meta and FullSnapshot events. */
export function demoPageSnapshot(page: string, viewport: Viewport, at: number, snapshots = demoSnapshots()): RrwebEvent[] | null {
  return hasDemoPage(page) ? opening(page, viewport, at, snapshots) : null;
}

/**
 * A clip around one or more signals on one page: the page, then the pointer drifting, moving to
 * each signal's spot and pressing (five times for a rage click) or typing (masked) in a form
 * field, from CLIP_BEFORE_MS before the first signal to CLIP_AFTER_MS after the last. Null for
 * a page the demo has no static copy of. Deterministic: the same signals make the same clip.
 */
export function demoClip(page: string, viewport: Viewport, signals: readonly ClipSignal[], snapshots = demoSnapshots()): DemoClip | null {
  if (!hasDemoPage(page) || signals.length === 0) return null;
  const sorted = [...signals].sort((a, b) => a.occurred_at - b.occurred_at);
  const start = sorted[0].occurred_at - CLIP_BEFORE_MS;
  const end = sorted[sorted.length - 1].occurred_at + CLIP_AFTER_MS;
  const rng = new Prng(sorted.map((s) => s.event_id).join(':'));
  const ids = snapshots.pages[page].ids;
  const events = opening(page, viewport, start, snapshots);
  const px = (fraction: number | null, size: number, fallback: number) => Math.round((fraction ?? fallback) * size);
  let pointer = { x: Math.round(viewport.width * rng.between(0.3, 0.7)), y: Math.round(viewport.height * rng.between(0.2, 0.5)) };
  let at = start;

  // Pointer moves in a few eased steps, as rrweb batches them (positions with time offsets).
  const moveTo = (x: number, y: number, until: number) => {
    const steps = 6;
    const from = pointer;
    const positions = Array.from({ length: steps }, (_, i) => {
      const t = (i + 1) / steps;
      const ease = t * t * (3 - 2 * t);
      return { x: Math.round(from.x + (x - from.x) * ease), y: Math.round(from.y + (y - from.y) * ease), id: 1, timeOffset: Math.round((t - 1) * (until - at)) };
    });
    events.push({ type: EVENT.incremental, data: { source: SOURCE.mouseMove, positions }, timestamp: until });
    pointer = { x, y };
    at = until;
  };
  const interaction = (type: number, id: number, timestamp: number) =>
    events.push({ type: EVENT.incremental, data: { source: SOURCE.mouseInteraction, type, id, x: pointer.x, y: pointer.y }, timestamp });

  for (const signal of sorted) {
    const target = { x: px(signal.vx, viewport.width, 0.5), y: px(signal.vy, viewport.height, 0.5) };
    const id = (signal.element && ids[signal.element]) || 1;
    // Wander, then head for the element, arriving a little before the signal fires.
    const wander = Math.max(at, signal.occurred_at - rng.int(2500, 4000));
    if (wander > at) moveTo(Math.round(viewport.width * rng.between(0.2, 0.8)), Math.round(viewport.height * rng.between(0.2, 0.8)), wander);
    moveTo(target.x, target.y, Math.max(at, signal.occurred_at - 300));
    const { presses, typing } = gesture(signal.signal_type);
    if (typing) {
      interaction(MOUSE.focus, id, signal.occurred_at - 250);
      for (let n = 1; n <= 8; n++) {
        // Masked, as the SDK sends every input: only the length changes.
        events.push({ type: EVENT.incremental, data: { source: SOURCE.input, id, text: '*'.repeat(n), isChecked: false }, timestamp: signal.occurred_at - 250 + n * 120 });
      }
      interaction(MOUSE.blur, id, signal.occurred_at + 900);
      at = signal.occurred_at + 900;
    } else {
      for (let n = 0; n < presses; n++) {
        const t = signal.occurred_at + n * 180;
        interaction(MOUSE.mouseDown, id, t);
        interaction(MOUSE.mouseUp, id, t + 60);
        interaction(MOUSE.click, id, t + 70);
      }
      at = signal.occurred_at + (presses - 1) * 180 + 70;
    }
  }
  // Linger, then drift away before the clip ends.
  moveTo(Math.round(viewport.width * rng.between(0.2, 0.8)), Math.round(viewport.height * rng.between(0.1, 0.4)), Math.max(at, end - 1000));
  events.sort((a, b) => a.timestamp - b.timestamp);
  return { events, started_at: start, ended_at: end, signal_ids: sorted.map((s) => s.event_id) };
}
