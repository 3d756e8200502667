// The terminal's summary of traffic: where a terminal hides the per-request lines (they are
// at `debug` there, logs/terminal-log.ts), one line at most once a minute says how much came
// in, and only when something did: "12 requests, 340 events in the last minute".
import { systemClock, type Clock } from '../clock.ts';

/** Running totals since the app was built (Metrics.totals). */
export interface TrafficTotals { requests: number; events: number }

export interface HeartbeatOptions {
  /** How often a line may be printed (default one minute). */
  everyMs?: number;
  clock?: Clock;
  /** Calls tick every `ms`; returns what cancels it. Default: an unref'd setInterval. */
  schedule?: (tick: () => void, ms: number) => () => void;
}

export interface Heartbeat {
  /** Prints the line if a period has passed since the last one and there were requests. */
  tick(): void;
  stop(): void;
}

const MINUTE_MS = 60_000;
const SLACK_MS = 1_000;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function heartbeatLine(requests: number, events: number, everyMs = MINUTE_MS): string {
  const period = everyMs === MINUTE_MS ? 'minute' : `${Math.round(everyMs / 1000)} s`;
  return `${count(requests, 'request', 'requests')}, ${count(events, 'event', 'events')} in the last ${period}`;
}

function everyInterval(tick: () => void, ms: number): () => void {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
}

export function startHeartbeat(read: () => TrafficTotals, log: (line: string) => void, options: HeartbeatOptions = {}): Heartbeat {
  const everyMs = options.everyMs ?? MINUTE_MS;
  const clock = options.clock ?? systemClock;
  let since = read();
  let sinceAt = clock.now();
  const tick = () => {
    // A tick called by hand never prints twice in one period: the counts wait for the next
    // tick. A timer's tick may read the clock a little short of the period (timer and wall
    // clock drift by milliseconds), so a second of slack.
    if (clock.now() - sinceAt < everyMs - SLACK_MS) return;
    const now = read();
    const requests = now.requests - since.requests;
    const events = now.events - since.events;
    since = now;
    sinceAt = clock.now();
    if (requests > 0) log(heartbeatLine(requests, events, everyMs));
  };
  const cancel = (options.schedule ?? everyInterval)(tick, everyMs);
  return { tick, stop: cancel };
}
