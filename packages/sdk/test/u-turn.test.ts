import { describe, expect, it } from 'vitest';
import { uTurnNavigation } from '../src/detectors/u-turn.ts';
import { makeContext } from './helpers.ts';

describe('u_turn_navigation', () => {
  it('fires on a return to the previous page within 5000 ms, on the page turned away from', () => {
    const { ctx, signals } = makeContext();
    const d = uTurnNavigation(ctx, { within_ms: 5000 });
    d.pageview!('/pricing', 0);
    d.pageview!('/plans', 10_000);
    d.pageview!('/pricing', 15_000);
    expect(signals).toEqual([{ type: 'u_turn_navigation', page: '/plans', confidence: 0.8, duration_ms: 5000 }]);
  });

  it('does not fire after 5000 ms, on a reload, or onward', () => {
    const { ctx, signals } = makeContext();
    const d = uTurnNavigation(ctx, { within_ms: 5000 });
    d.pageview!('/a', 0);
    d.pageview!('/b', 1000);
    d.pageview!('/a', 6001);
    d.pageview!('/a', 6500);
    d.pageview!('/c', 7000);
    expect(signals).toHaveLength(0);
  });

  it('remembers the last pages in session storage across page loads', () => {
    const { ctx, signals } = makeContext();
    uTurnNavigation(ctx, { within_ms: 5000 }).pageview!('/a', 0);
    uTurnNavigation(ctx, { within_ms: 5000 }).pageview!('/b', 1000);
    uTurnNavigation(ctx, { within_ms: 5000 }).pageview!('/a', 2000);
    expect(signals).toHaveLength(1);
  });
});
