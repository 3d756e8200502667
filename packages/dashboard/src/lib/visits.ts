// A session's events as page visits: each pageview starts a visit that lasts until the next
// one (or the session's end); signals and tracked events belong to the visit they happened in.
import type { SessionEvent } from '../api/types.ts';

export interface Visit { page: string; at: string; ms: number | null; events: SessionEvent[] }

export function visits(events: readonly SessionEvent[], endedAt: string | null): Visit[] {
  const out: Visit[] = [];
  for (const e of events) {
    if (e.type === 'pageview' || out.length === 0) out.push({ page: e.page, at: e.occurred_at, ms: null, events: [] });
    if (e.type !== 'pageview') out[out.length - 1].events.push(e);
  }
  for (let i = 0; i < out.length; i++) {
    const end = i + 1 < out.length ? out[i + 1].at : endedAt;
    out[i].ms = end ? Math.max(0, Date.parse(end) - Date.parse(out[i].at)) : null;
  }
  return out;
}
