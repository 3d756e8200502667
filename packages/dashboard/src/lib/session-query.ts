// The Sessions screen's filters, kept in the address, as GET /v1/query/sessions's parameters:
// the server filters, sorts and pages; the browser never does.
import { rangeQuery, asRange, type Range } from '../components/filters.tsx';

export const SESSION_SORTS = { friction: 'Most friction', start: 'Latest start', duration: 'Longest' } as const;
export type SessionSort = keyof typeof SESSION_SORTS;
export const SESSIONS_PAGE_SIZE = 50;

export interface SessionFilters {
  page: string; signal_type: string; issue_id: string; device: string; browser: string;
  converted: '' | 'true' | 'false'; min_friction: string; sort: SessionSort; range: Range; offset: number;
}

/** The filters of an address's query string; anything unknown falls back to its default. */
export function sessionFilters(query: URLSearchParams): SessionFilters {
  const converted = query.get('converted');
  const sort = query.get('sort');
  const offset = Number(query.get('offset'));
  return {
    page: query.get('page') ?? '',
    signal_type: query.get('signal_type') ?? '',
    issue_id: query.get('issue_id') ?? '',
    device: query.get('device') ?? '',
    browser: query.get('browser') ?? '',
    converted: converted === 'true' || converted === 'false' ? converted : '',
    min_friction: /^\d+(\.\d+)?$/.test(query.get('min_friction') ?? '') ? query.get('min_friction')! : '',
    sort: sort && sort in SESSION_SORTS ? sort as SessionSort : 'friction',
    range: asRange(query.get('range') ?? '7d'),
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The API's query: empty filters left out, the period as `from`, the default sort not sent. */
export function sessionSearchQuery(f: SessionFilters, now = Date.now()) {
  return {
    page: f.page || undefined,
    signal_type: f.signal_type || undefined,
    issue_id: f.issue_id || undefined,
    device: f.device || undefined,
    browser: f.browser || undefined,
    converted: f.converted || undefined,
    min_friction: f.min_friction || undefined,
    sort: f.sort === 'friction' ? undefined : f.sort,
    limit: SESSIONS_PAGE_SIZE,
    offset: f.offset || undefined,
    ...rangeQuery(f.range, now),
  };
}
