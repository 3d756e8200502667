// The clips recorder's pure parts: the rolling buffer (segments kept and dropped, a clip cut at
// the full snapshot before its start) and the plan (which signals open a clip, which join it).
import { describe, expect, it } from 'vitest';
import { AFTER_MS, BEFORE_MS, ClipBuffer, FULL_SNAPSHOT, MAX_EVENTS, META, type RecordedEvent } from '../src/clips/buffer.ts';
import { ClipPlan, MAX_SIGNALS } from '../src/clips/plan.ts';

const T0 = 1_800_000_000_000;
const INCREMENT = 3;
const ev = (type: number, at: number): RecordedEvent => ({ type, timestamp: T0 + at, data: {} });

/** A page recorded from 0 to `until` ms: a checkout (Meta + FullSnapshot) every 10 s, an increment every second. */
function recorded(until: number, buffer = new ClipBuffer()) {
  for (let at = 0; at <= until; at += 1000) {
    if (at % 10_000 === 0) {
      buffer.add(ev(META, at));
      buffer.add(ev(FULL_SNAPSHOT, at));
    } else buffer.add(ev(INCREMENT, at));
  }
  return buffer;
}

describe('the rolling buffer', () => {
  it('drops a segment once the next one began 15 s ago, so no more than ~25 s is held', () => {
    const buffer = recorded(24_000);
    // At 24 s the segment from 10 s is not yet 15 s old: a clip cut now may start at 9 s.
    expect(buffer.starts).toEqual([T0, T0 + 10_000, T0 + 20_000]);
    const b = recorded(25_000);
    expect(b.starts).toEqual([T0 + 10_000, T0 + 20_000]);
    const long = recorded(95_000);
    expect(long.starts).toEqual([T0 + 80_000, T0 + 90_000]);
    const held = long.events;
    expect(held[held.length - 1].timestamp - held[0].timestamp).toBeLessThanOrEqual(30_000);
    expect(long.size).toBe(held.length);
  });

  it('keeps what a clip due now needs: the checkout at or before its start', () => {
    // A signal at 33.5 s is cut at 38.5 s and starts at 23.5 s: the segment from 20 s must still be there.
    const buffer = recorded(38_000);
    const signal = T0 + 33_500;
    const cut = buffer.cut(signal - BEFORE_MS, signal + AFTER_MS)!;
    expect(cut.events[0]).toEqual(ev(META, 20_000));
    expect(cut.events[1]).toEqual(ev(FULL_SNAPSHOT, 20_000));
    expect(cut.events[cut.events.length - 1].timestamp).toBe(T0 + 38_000);
    expect(cut.startedAt).toBe(T0 + 23_500);
    expect(cut.endedAt).toBe(T0 + 38_500);
    expect(cut.endedAt - cut.startedAt).toBeLessThanOrEqual(20_000);
  });

  it('cuts at a full snapshot exactly at the start, and leaves out what came after the end', () => {
    const buffer = recorded(38_000);
    const cut = buffer.cut(T0 + 30_000, T0 + 32_000)!;
    expect(cut.events.map((e) => [e.type, e.timestamp - T0])).toEqual([[META, 30_000], [FULL_SNAPSHOT, 30_000], [INCREMENT, 31_000], [INCREMENT, 32_000]]);
    expect(cut.startedAt).toBe(T0 + 30_000);
  });

  it('a clip reaching back before the recording began starts at its first snapshot', () => {
    const buffer = recorded(4_000);
    const cut = buffer.cut(T0 - 8_000, T0 + 7_000)!;
    expect(cut.events[0]).toEqual(ev(META, 0));
    expect(cut.events).toHaveLength(6);
    expect(cut.startedAt).toBe(T0);
  });

  it('holds nothing before the first checkout, and cuts nothing without a full snapshot', () => {
    const buffer = new ClipBuffer();
    buffer.add(ev(INCREMENT, 0));
    expect(buffer.size).toBe(0);
    expect(buffer.cut(T0 - BEFORE_MS, T0 + AFTER_MS)).toBeNull();
    buffer.add(ev(META, 1000));
    expect(buffer.cut(T0, T0 + 2000)).toBeNull();
  });

  it('empties itself when one segment outgrows MAX_EVENTS, asking for a new checkout', () => {
    const buffer = new ClipBuffer();
    buffer.add(ev(META, 0));
    buffer.add(ev(FULL_SNAPSHOT, 0));
    let ok = true;
    for (let i = 0; ok && i < MAX_EVENTS + 10; i++) ok = buffer.add(ev(INCREMENT, 1));
    expect(ok).toBe(false);
    expect(buffer.size).toBe(0);
    expect(buffer.add(ev(META, 2))).toBe(true);
  });

  it('drops older segments first when the events pile up', () => {
    const buffer = new ClipBuffer();
    buffer.add(ev(META, 0));
    for (let i = 0; i < MAX_EVENTS - 5; i++) buffer.add(ev(INCREMENT, 1));
    expect(buffer.add(ev(META, 2))).toBe(true);
    for (let i = 0; i < 10; i++) expect(buffer.add(ev(INCREMENT, 3))).toBe(true);
    expect(buffer.starts).toEqual([T0 + 2]);
    expect(buffer.size).toBe(11);
  });
});

describe('the clip plan', () => {
  const signal = (id: string, type = 'rage_click', element = '#pay') => ({ id, type, element, page: '/checkout' });

  it('opens a clip for a tier-1 or tier-2 signal; signals within the next 5 s join it, later ones open another', () => {
    const plan = new ClipPlan([]);
    const first = plan.add(signal('a'.repeat(16)), T0)!;
    expect(first).toEqual({ first: T0, page: '/checkout', ids: ['a'.repeat(16)] });
    expect(plan.add(signal('b'.repeat(16), 'u_turn_navigation', ''), T0 + 2000)).toBeNull();
    expect(plan.add(signal('c'.repeat(16), 'dead_click'), T0 + AFTER_MS)).toBeNull();
    expect(first.ids).toEqual(['a'.repeat(16), 'b'.repeat(16), 'c'.repeat(16)]);
    const second = plan.add(signal('d'.repeat(16)), T0 + AFTER_MS + 1)!;
    expect(second.ids).toEqual(['d'.repeat(16)]);
  });

  it('after a clip was cut, the next signal opens a new one', () => {
    const plan = new ClipPlan([]);
    const first = plan.add(signal('a'.repeat(16)), T0)!;
    plan.close(first);
    expect(plan.add(signal('b'.repeat(16)), T0 + 1000)).not.toBeNull();
  });

  it('skips tier-3 and custom signals, signals without an id, and elements that have their clips today', () => {
    const plan = new ClipPlan(['#pay', 42]);
    expect(plan.add(signal('a'.repeat(16), 'thrash_cursor', ''), T0)).toBeNull();
    expect(plan.add(signal('a'.repeat(16), 'jerky_scrolling', ''), T0)).toBeNull();
    expect(plan.add(signal('a'.repeat(16), 'pricing_confusion', '#x'), T0)).toBeNull();
    expect(plan.add(signal(''), T0)).toBeNull();
    expect(plan.add(signal('a'.repeat(16)), T0)).toBeNull();
    expect(plan.add(signal('a'.repeat(16), 'rage_click', '#other'), T0)).not.toBeNull();
  });

  it(`names at most ${MAX_SIGNALS} signals`, () => {
    const plan = new ClipPlan(undefined);
    const clip = plan.add(signal('0'.repeat(16)), T0)!;
    for (let i = 1; i < 80; i++) plan.add(signal(i.toString(16).padStart(16, '0')), T0 + i);
    expect(clip.ids).toHaveLength(MAX_SIGNALS);
  });
});
