// Pure issue rules (DOMAIN.md section 4, docs/issues.md): the cluster threshold, the
// fingerprint, titles, the severity formula and its enum, and the verification verdict.
// Every expected number is worked out by hand next to it.
import { describe, expect, it } from 'vitest';
import {
  fingerprint, isCluster, issueTitle, severityOf, severityScore, verdict, type SeverityInput,
} from '../src/pipeline/issues.ts';

const HOUR = 60 * 60 * 1000;

describe('cluster threshold: at least 3 fires from at least 2 sessions', () => {
  it.each([
    [2, 2, false], // one fire short
    [3, 1, false], // one session short
    [2, 1, false],
    [0, 0, false],
    [3, 2, true], // exactly at the threshold
    [4, 2, true],
    [3, 3, true],
    [100, 40, true],
  ])('%i fires from %i sessions -> %s', (fires, sessions, expected) => {
    expect(isCluster(fires, sessions)).toBe(expected);
  });
});

describe('fingerprint of (site, page, type, element)', () => {
  const base = ['site-1', '/checkout', 'rage_click', 'button.pay'] as const;

  it('is stable: the same key always gives the same 32-hex fingerprint', () => {
    const a = fingerprint(...base);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprint(...base)).toBe(a);
    expect(fingerprint('site-1', '/checkout', 'rage_click', 'button.pay')).toBe(a);
  });

  it('changes with each part of the key', () => {
    const a = fingerprint(...base);
    expect(fingerprint('site-2', '/checkout', 'rage_click', 'button.pay')).not.toBe(a);
    expect(fingerprint('site-1', '/cart', 'rage_click', 'button.pay')).not.toBe(a);
    expect(fingerprint('site-1', '/checkout', 'dead_click', 'button.pay')).not.toBe(a);
    expect(fingerprint('site-1', '/checkout', 'rage_click', 'button.buy')).not.toBe(a);
    expect(fingerprint('site-1', '/checkout', 'rage_click', '')).not.toBe(a);
  });

  it('keeps the parts apart: moving text across a boundary is another key', () => {
    // Plain concatenation would make these equal ("/a" + "bc" + "" vs "/ab" + "c" + "").
    expect(fingerprint('s', '/a', 'bc', '')).not.toBe(fingerprint('s', '/ab', 'c', ''));
    expect(fingerprint('s', '/a', 'x', 'y z')).not.toBe(fingerprint('s', '/a', 'x y', 'z'));
  });
});

describe('title', () => {
  it('reads like the DOMAIN.md example', () => {
    expect(issueTitle('rage_click', 'Pay now', 'button.pay', '/checkout')).toBe("Rage clicks on 'Pay now' (button.pay) on /checkout");
  });
  it('without a label names the selector; without both, the page only', () => {
    expect(issueTitle('dead_click', null, 'a.plan', '/pricing')).toBe('Dead clicks on a.plan on /pricing');
    expect(issueTitle('error_encounter', null, '', '/settings')).toBe('Errors on /settings');
  });
  it('an unknown type is put into words', () => {
    expect(issueTitle('thrash_cursor', 'Menu', 'nav', '/')).toBe("Thrash cursor on 'Menu' (nav) on /");
  });
});

describe('severity score (docs/issues.md formula)', () => {
  const base: SeverityInput = {
    type: 'rage_click', weight: 25, affectedUsers: 2, pageActiveUsers: 4, fires24h: 3,
    page: '/checkout', revenueShare: 0, recentShare: 1,
  };
  // volume for 3 fires: log10(4) / log10(1001) x 15 = 0.6020600 / 3.0004341 x 15 = 3.00986
  const VOLUME_3 = 3.00986;

  it('tier 1 on an important page', () => {
    // type 30 + 25 / 40 x 10 = 36.25; reach 2/4 x 25 = 12.5; volume 3.00986; page 10; revenue 0;
    // recency 1 x 5 = 5. Sum 66.75986 -> 66.8, high.
    const score = severityScore(base);
    expect(score).toBe(66.8);
    expect(36.25 + 12.5 + VOLUME_3 + 10 + 5).toBeCloseTo(66.76, 2);
    expect(severityOf(score)).toBe('high');
  });

  it('tier 2 on an ordinary page, half converted, half recent', () => {
    // form_restart (tier 2, weight 16): 20 + 16 / 40 x 10 = 24; reach 1/10 x 25 = 2.5;
    // volume for 9 fires log10(10) / log10(1001) x 15 = 1 / 3.0004341 x 15 = 4.99928;
    // page 0; revenue 0.5 x 5 = 2.5; recency 0.5 x 5 = 2.5. Sum 36.49928 -> 36.5, medium.
    const score = severityScore({ ...base, type: 'form_restart', weight: 16, affectedUsers: 1, pageActiveUsers: 10, fires24h: 9, page: '/docs/intro', revenueShare: 0.5, recentShare: 0.5 });
    expect(score).toBe(36.5);
    expect(severityOf(score)).toBe('medium');
  });

  it('unknown types score as tier 3 with the fallback weight; a quiet old issue is low', () => {
    // custom type, weight 10: 10 + 2.5 = 12.5; reach 1/20 x 25 = 1.25; volume 3.00986; page 0;
    // revenue 0; recency 0. Sum 16.75986 -> 16.8, low.
    const score = severityScore({ ...base, type: 'my_custom_signal', weight: 10, affectedUsers: 1, pageActiveUsers: 20, page: '/blog', recentShare: 0 });
    expect(score).toBe(16.8);
    expect(severityOf(score)).toBe('low');
  });

  it('everything at its maximum is 100 at most, critical', () => {
    // revenue type weight 40: 30 + 10; reach 25; volume 15 (capped); page 10; revenue 5; recency 5 = 100.
    const score = severityScore({ type: 'value_collapse_downgrade', weight: 40, affectedUsers: 50, pageActiveUsers: 50, fires24h: 5000, page: '/pricing', revenueShare: 1, recentShare: 1 });
    expect(score).toBe(100);
    expect(severityOf(score)).toBe('critical');
  });

  it('page importance: checkout, cart, pricing, signup, login, billing and onboarding paths', () => {
    const plain = severityScore({ ...base, page: '/about' });
    for (const page of ['/checkout', '/cart', '/pricing', '/signup', '/login', '/billing', '/onboarding/step-2', '/app/billing']) {
      expect(severityScore({ ...base, page }), page).toBeCloseTo(plain + 10, 5);
    }
    expect(severityScore({ ...base, page: '/checkouts-archive' })).toBe(plain);
  });

  it.each([
    [100, 'critical'], [75, 'critical'], [74.9, 'high'], [50, 'high'], [49.9, 'medium'],
    [25, 'medium'], [24.9, 'low'], [0, 'low'],
  ] as const)('score %d is %s', (score, expected) => {
    expect(severityOf(score)).toBe(expected);
  });
});

describe('verification verdict (before-rate 1.0 signal per active user)', () => {
  const v = (afterCount: number, afterUsers: number, afterSessions = afterCount, elapsedHours = 1) =>
    verdict({ beforeRate: 1, afterCount, afterSessions, afterUsers, elapsedMs: elapsedHours * HOUR });

  it('with 50 active users after: <= 30 % verified, >= 70 % regressed, between inconclusive', () => {
    expect(v(0, 50)).toBe('verified');
    expect(v(15, 50)).toBe('verified'); // 0.30 exactly
    expect(v(16, 50)).toBe('inconclusive'); // 0.32
    expect(v(34, 50)).toBe('inconclusive'); // 0.68
    expect(v(35, 50)).toBe('regressed'); // 0.70 exactly
    expect(v(35, 50, 1)).toBe('regressed'); // even from one session, once 50 users have been seen
  });

  it('a 95 % drop on a busy page is verified although the rest forms a cluster', () => {
    // 2000 users, 100 fires from 80 sessions: rate 0.05 = 5 % of before.
    expect(v(100, 2000, 80)).toBe('verified');
  });

  it('recurrence that forms a cluster at >= 70 % regresses before 50 users', () => {
    expect(v(3, 4, 2)).toBe('regressed'); // 0.75 >= 0.7, 3 fires from 2 sessions
    expect(v(3, 4, 1)).toBe('pending'); // one session: not a cluster yet
    expect(v(2, 2, 2)).toBe('pending'); // two fires: not a cluster yet
    expect(v(3, 5, 3)).toBe('pending'); // 0.6 < 0.7
  });

  it('too little traffic: pending until 48 hours, then inconclusive', () => {
    expect(v(1, 49, 1, 47.9)).toBe('pending');
    expect(v(1, 49, 1, 48)).toBe('inconclusive');
    expect(v(0, 0, 0, 48)).toBe('inconclusive');
  });
});
