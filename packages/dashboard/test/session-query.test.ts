import { describe, expect, it } from 'vitest';
import { sessionFilters, sessionSearchQuery } from '../src/lib/session-query.ts';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

describe('the sessions search query', () => {
  it('asks for the last 7 days by most friction when nothing is chosen', () => {
    const q = sessionSearchQuery(sessionFilters(new URLSearchParams('')), NOW);
    expect(q).toEqual({
      page: undefined, signal_type: undefined, issue_id: undefined, device: undefined, browser: undefined, converted: undefined,
      min_friction: undefined, sort: undefined, limit: 50, offset: undefined, from: new Date(NOW - 7 * 86_400_000).toISOString(),
    });
  });

  it('sends every chosen filter, the sort and the page of results', () => {
    const f = sessionFilters(new URLSearchParams('page=/checkout*&signal_type=rage_click&device=mobile&browser=Safari&converted=false&min_friction=12.5&sort=duration&range=24h&offset=100'));
    expect(sessionSearchQuery(f, NOW)).toMatchObject({
      page: '/checkout*', signal_type: 'rage_click', device: 'mobile', browser: 'Safari', converted: 'false', min_friction: '12.5', sort: 'duration', offset: 100,
      from: new Date(NOW - 86_400_000).toISOString(),
    });
  });

  it('drops what the API would refuse: an unknown sort, a bad number, a negative offset', () => {
    const f = sessionFilters(new URLSearchParams('sort=random&min_friction=-3&offset=-50&converted=maybe'));
    expect(f).toMatchObject({ sort: 'friction', min_friction: '', offset: 0, converted: '' });
  });
});
