// The terminal's traffic line (logs/heartbeat.ts), driven by a hand-moved clock and a timer the
// test fires itself: at most one line a minute, only after requests, counting since the last.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { heartbeatLine, startHeartbeat, type TrafficTotals } from '../src/logs/heartbeat.ts';

const MINUTE = 60_000;

function rig() {
  const clock = new ManualClock(Date.parse('2026-11-28T12:00:00Z'));
  const totals: TrafficTotals = { requests: 0, events: 0 };
  const lines: string[] = [];
  const timer = { tick: null as (() => void) | null, everyMs: 0, cancelled: false };
  const heartbeat = startHeartbeat(() => ({ ...totals }), (line) => lines.push(line), {
    clock,
    schedule: (tick, ms) => {
      timer.tick = tick;
      timer.everyMs = ms;
      return () => { timer.cancelled = true; };
    },
  });
  /** The timer firing one period later. */
  const minuteLater = () => { clock.advance(MINUTE); timer.tick!(); };
  return { clock, totals, lines, timer, heartbeat, minuteLater };
}

describe('heartbeat', () => {
  it('is scheduled once a minute and prints the requests and events since the last line', () => {
    const { totals, lines, timer, minuteLater } = rig();
    expect(timer.everyMs).toBe(MINUTE);
    totals.requests = 12;
    totals.events = 340;
    minuteLater();
    expect(lines).toEqual(['12 requests, 340 events in the last minute']);
    totals.requests = 13;
    totals.events = 341;
    minuteLater();
    expect(lines).toEqual(['12 requests, 340 events in the last minute', '1 request, 1 event in the last minute']);
  });

  it('prints nothing for a minute without requests, and the next line counts from there', () => {
    const { totals, lines, minuteLater } = rig();
    minuteLater();
    expect(lines).toEqual([]);
    totals.requests = 3;
    minuteLater();
    expect(lines).toEqual(['3 requests, 0 events in the last minute']);
  });

  it('never prints twice within a minute: an early tick leaves the counts for the next one', () => {
    const { clock, totals, lines, heartbeat, minuteLater } = rig();
    totals.requests = 5;
    minuteLater();
    totals.requests = 9;
    totals.events = 4;
    clock.advance(30_000);
    heartbeat.tick();
    expect(lines).toEqual(['5 requests, 0 events in the last minute']);
    clock.advance(30_000);
    heartbeat.tick();
    expect(lines).toEqual(['5 requests, 0 events in the last minute', '4 requests, 4 events in the last minute']);
  });

  it('tolerates a timer that reads the clock a few milliseconds short of the minute', () => {
    const { clock, totals, lines, timer } = rig();
    totals.requests = 2;
    clock.advance(MINUTE - 5);
    timer.tick!();
    expect(lines).toEqual(['2 requests, 0 events in the last minute']);
  });

  it('stop cancels the timer', () => {
    const { timer, heartbeat } = rig();
    expect(timer.cancelled).toBe(false);
    heartbeat.stop();
    expect(timer.cancelled).toBe(true);
  });

  it('names a period other than a minute in seconds', () => {
    expect(heartbeatLine(1, 0, 30_000)).toBe('1 request, 0 events in the last 30 s');
  });
});
