// A clip's timeline: its length, the signal's moment (from the clip's own marker, the signal's
// time, or the recorder's rule), the scrubber's position, the pulse's point and the clips'
// places on a session's timeline.
import { describe, expect, it } from 'vitest';
import { clipEvents, clipOnSession, clipSpan, fitViewport, scrubberFraction, signalMoment, signalPoint, type ClipEvent } from '../src/layout/clip-timeline.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const meta = (t: number): ClipEvent => ({ type: 4, timestamp: T0 + t, data: { width: 1280, height: 720 } });
const full = (t: number): ClipEvent => ({ type: 2, timestamp: T0 + t, data: { node: {} } });
const move = (t: number): ClipEvent => ({ type: 3, timestamp: T0 + t, data: { source: 1, positions: [] } });
const click = (t: number, x: number, y: number): ClipEvent => ({ type: 3, timestamp: T0 + t, data: { source: 2, type: 2, id: 5, x, y } });
const marker = (t: number, payload: unknown): ClipEvent => ({ type: 5, timestamp: T0 + t, data: { tag: 'mallard-signal', payload } });

describe('a clip\'s timeline', () => {
  const events = [meta(0), full(0), move(2000), click(9800, 640, 300), marker(10_000, { signal_ids: ['s1', 's2'] }), move(15_000)];

  it('lasts from its first event to its last, whatever their order', () => {
    expect(clipSpan([move(15_000), meta(0), full(1)])).toEqual({ start: T0, end: T0 + 15_000, duration: 15_000 });
    expect(clipSpan([])).toEqual({ start: 0, end: 0, duration: 0 });
  });

  it('finds the signal\'s moment in the clip\'s own marker first', () => {
    expect(signalMoment(events, 's2', T0, T0 + 3000)).toBe(10_000);
    expect(signalMoment([meta(0), marker(4000, { id: 's9' }), move(8000)], 's9', T0)).toBe(4000);
    expect(signalMoment([meta(0), marker(6000, { signal_id: 's7' }), move(8000)], 's7', T0)).toBe(6000);
  });

  it('falls back on the signal\'s own time against the clip\'s start, kept inside the clip', () => {
    expect(signalMoment(events, 'other', T0, T0 + 7250)).toBe(7250);
    expect(signalMoment(events, 'other', T0, T0 - 60_000)).toBe(0);
    expect(signalMoment(events, 'other', T0, T0 + 60_000)).toBe(15_000);
  });

  it('without either, takes the recorder\'s rule: the signal is 5 s before the clip ends', () => {
    expect(signalMoment(events, 'other', T0)).toBe(10_000);
    expect(signalMoment([meta(0), move(3000)], undefined, T0)).toBe(0);
  });

  it('puts the moment on the scrubber as a fraction of the clip', () => {
    expect(scrubberFraction(10_000, 15_000)).toBeCloseTo(2 / 3);
    expect(scrubberFraction(0, 15_000)).toBe(0);
    expect(scrubberFraction(20_000, 15_000)).toBe(1);
    expect(scrubberFraction(5, 0)).toBe(0);
  });

  it('pulses at the click nearest the moment, and nowhere when no click or marked point is near', () => {
    expect(signalPoint(events, 10_000)).toEqual({ x: 640, y: 300 });
    expect(signalPoint([meta(0), click(1000, 5, 5), marker(9000, { x: 70, y: 80 })], 9000)).toEqual({ x: 70, y: 80 });
    expect(signalPoint([meta(0), click(1000, 5, 5), move(9000)], 9000)).toBeNull();
  });

  it('fits the recorded viewport into the frame by width or height, never enlarging it', () => {
    expect(fitViewport({ width: 1280, height: 720 }, 640, 480)).toBe(0.5);
    expect(fitViewport({ width: 390, height: 844 }, 640, 422)).toBe(0.5);
    expect(fitViewport({ width: 390, height: 844 }, 1200, 2000)).toBe(1);
  });
});

describe('a clip\'s events as the API sends them (opaque JSON)', () => {
  it('keeps those shaped like rrweb events, in order, and drops the rest', () => {
    const events: unknown[] = [meta(0), null, 'x', { type: '2', timestamp: T0 }, { type: 2 }, full(5), [3, T0], move(9)];
    expect(clipEvents(events)).toEqual([meta(0), full(5), move(9)]);
    expect(clipEvents([])).toEqual([]);
  });
});

describe('clips on a session\'s timeline', () => {
  const session = { started_at: '2026-11-20T10:00:00Z', ended_at: '2026-11-20T10:10:00Z' };
  it('places a clip by its start and end as fractions of the session', () => {
    const at = clipOnSession({ started_at: '2026-11-20T10:05:00Z', ended_at: '2026-11-20T10:05:15Z' }, session);
    expect(at.from).toBeCloseTo(0.5);
    expect(at.to).toBeCloseTo(0.525);
  });
  it('stretches a session with no end (or one before the clip\'s end) to the clip', () => {
    expect(clipOnSession({ started_at: '2026-11-20T10:05:00Z', ended_at: '2026-11-20T10:10:00Z' }, { ...session, ended_at: null })).toEqual({ from: 0.5, to: 1 });
  });
});
