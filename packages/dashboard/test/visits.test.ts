// A session's events as page visits, for the session timeline.
import { describe, expect, it } from 'vitest';
import { visits } from '../src/lib/visits.ts';
import type { SessionEvent } from '../src/api/types.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, s)).toISOString();
const e = (type: string, page: string, s: number, extra: Partial<SessionEvent> = {}): SessionEvent => ({ id: `${type}${s}`, type, page, occurred_at: at(s), ...extra });

describe('session visits', () => {
  it('starts a visit at each pageview, lasting until the next one or the session end', () => {
    const list = visits([
      e('pageview', '/cart', 0),
      e('signal', '/cart', 5, { signal_type: 'rage_click' }),
      e('pageview', '/checkout', 20),
      e('track', '/checkout', 30, { name: 'checkout_abandoned' }),
    ], at(95));
    expect(list.map((v) => [v.page, v.ms, v.events.map((x) => x.type)])).toEqual([
      ['/cart', 20_000, ['signal']],
      ['/checkout', 75_000, ['track']],
    ]);
  });

  it('keeps events before the first pageview in a visit of their own page, and an open end unknown', () => {
    const list = visits([e('signal', '/search', 0, { signal_type: 'dead_click' }), e('pageview', '/search', 3)], null);
    expect(list.map((v) => [v.page, v.ms, v.events.length])).toEqual([['/search', 3000, 1], ['/search', null, 0]]);
  });
});
