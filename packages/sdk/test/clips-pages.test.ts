// The recorder names pages as the server stores them (src/clips/pages.ts), so a snapshot the
// server lists in `snapshots_taken` as `/orders/:id` is not sent again from /orders/4711. Checked
// here against the server's own normalizePage over paths with every kind of id and the site's
// page groups.
import { describe, expect, it } from 'vitest';
import { normalizePage } from '../../server/src/domain/normalize.ts';
import { normalizePath, pageGroups } from '../src/clips/pages.ts';
import { rememberSnapshot, wantsSnapshot } from '../src/clips/snapshots.ts';

const PATHS = [
  '/', '//', '/checkout', '/checkout/', '/orders/4711', '/orders/4711/items/12', '/u/0b9e4c5e-1f7a-4c1e-9a3b-2f0c8d9e7a61',
  '/t/0B9E4C5E1F7A4C1E9A3B2F0C8D9E7A61', '/f/deadbeefdeadbeef00', '/s/aB3dE5gH7jK9mN1pQ', '/documentation/introduction',
  '/caf%C3%A9/42', '/bad%E0%A4%A', '/a//b///c/', '/orders/12?x=1#y', '/Orders/12', '/v2/api', '/2024/10/recap',
];
const RULES = [{ match: '^/u/', page: '/account' }, { match: '^/orders/:id/items', page: '/orders/items' }, { match: '([', page: '/never' }];

describe('page names', () => {
  it('are the server\'s normalizePage, with and without the site\'s page groups (an unreadable pattern skipped)', () => {
    const serverGroups = RULES.flatMap((r) => { try { return [{ match: new RegExp(r.match), page: r.page }]; } catch { return []; } });
    for (const path of PATHS) {
      expect(normalizePath(path, []), path).toBe(normalizePage(path));
      expect(normalizePath(path, pageGroups(RULES)), path).toBe(normalizePage(path, serverGroups));
    }
    expect(normalizePath('/orders/4711', [])).toBe('/orders/:id');
    expect(normalizePath('/u/ann', pageGroups(RULES))).toBe('/account');
    expect(pageGroups('nope')).toEqual([]);
  });

  it('are what snapshots_taken and the remembered snapshots are matched against', () => {
    const groups = pageGroups(RULES);
    const config = { device: 'desktop', snapshots_taken: ['desktop:/orders/:id'] };
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) } as Storage;
    const now = Date.UTC(2026, 10, 28, 12);
    expect(wantsSnapshot(config, normalizePath('/orders/4711', groups), storage, now)).toBe(false);
    expect(wantsSnapshot(config, normalizePath('/u/ann', groups), storage, now)).toBe(true);
    rememberSnapshot(config, normalizePath('/u/ann', groups), storage, now);
    expect(wantsSnapshot(config, normalizePath('/u/bob', groups), storage, now)).toBe(false);
  });
});
