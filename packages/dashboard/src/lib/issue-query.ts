// The issues list's filters as the API's query parameters: the browser never filters or sorts
// the list itself, so the order and the total are the server's.

/** "Needs attention": every unresolved status, the API's `attention=true`. */
export const ATTENTION_STATUSES = ['open', 'triaged', 'in_progress', 'regressed'] as const;
export const ATTENTION_WORDS = 'open, triaged, in progress or regressed';

/** The API's five orders; priority is its default. */
export const ISSUE_SORTS = {
  priority: 'Priority (what to fix first)',
  severity: 'Severity',
  users: 'Users in 7 days',
  revenue: 'Revenue at risk',
  last_seen: 'Last seen',
} as const;
export type IssueSort = keyof typeof ISSUE_SORTS;

export interface IssueFilters { status: string; severity?: string; page?: string; type?: string; sort?: string }

/**
 * The query for GET /v1/query/issues: status `attention` (the screen's default) is
 * `attention=true`, `any` no status filter, any other value the API's exact `status`; `sort`
 * is sent only when it is not the server's default.
 */
export function issueListQuery({ status, severity, page, type, sort }: IssueFilters) {
  return {
    attention: status === 'attention' ? true : undefined,
    status: status === 'attention' || status === 'any' ? undefined : status,
    severity: severity || undefined,
    page: page || undefined,
    type: type || undefined,
    sort: sort && sort !== 'priority' && sort in ISSUE_SORTS ? sort : undefined,
  };
}
