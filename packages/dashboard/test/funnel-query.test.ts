import { describe, expect, it } from 'vitest';
import { parseSteps, stepSessionsQuery, stepShares, stepsProblem } from '../src/lib/funnel-query.ts';

describe('funnel steps', () => {
  it('reads steps from commas or lines, trimmed, empty ones dropped', () => {
    expect(parseSteps(' /cart, /checkout\n\ncheckout_completed ,')).toEqual(['/cart', '/checkout', 'checkout_completed']);
  });

  it('says why a list cannot be asked for', () => {
    expect(stepsProblem(['/cart'])).toContain('at least 2');
    expect(stepsProblem(Array.from({ length: 11 }, (_, k) => `/p${k}`))).toContain('at most 10');
    expect(stepsProblem(['/cart', '/checkout'])).toBeNull();
  });

  it('links a page step to its sessions, with the signal met there; an event step has no page to link', () => {
    expect(stepSessionsQuery('/checkout', 'rage_click')).toEqual({ page: '/checkout', signal_type: 'rage_click' });
    expect(stepSessionsQuery('/checkout', null)).toEqual({ page: '/checkout' });
    expect(stepSessionsQuery('checkout_completed', 'rage_click')).toBeNull();
  });

  it('draws each step against the first', () => {
    expect(stepShares([200, 100, 50])).toEqual([1, 0.5, 0.25]);
    expect(stepShares([0, 0])).toEqual([0, 0]);
  });
});
