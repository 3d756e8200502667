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

export interface IssueFilters { status: string; severity?: string; page?: string; type?: string; sort?: string; q?: string; assigned_to?: string }

/**
 * The query for GET /v1/query/issues: status `attention` (the screen's default) is
 * `attention=true`, `any` no status filter, any other value the API's exact `status`; `sort`
 * is sent only when it is not the server's default.
 */
export function issueListQuery({ status, severity, page, type, sort, q, assigned_to }: IssueFilters) {
  return {
    attention: status === 'attention' ? true : undefined,
    status: status === 'attention' || status === 'any' ? undefined : status,
    severity: severity || undefined,
    page: page || undefined,
    type: type || undefined,
    sort: sort && sort !== 'priority' && sort in ISSUE_SORTS ? sort : undefined,
    q: q?.trim() || undefined,
    assigned_to: assigned_to || undefined,
  };
}

/** The column each sort orders by: a sortable header of the issues table. */
export const SORT_COLUMNS: Record<IssueSort, string> = { priority: 'Priority', severity: 'Severity', users: 'Users, 7 days', revenue: 'Revenue at risk', last_seen: 'Last seen' };

/** Statuses a person may set by hand (regressed is the engine's). */
export const SETTABLE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored'] as const;

/**
 * A bulk change: one PATCH per selected issue, all through the API. Answers the ids that
 * failed with their error, so the screen can say which and keep them selected.
 */
export async function patchEach(ids: string[], patch: (id: string) => Promise<unknown>): Promise<{ done: string[]; failed: { id: string; error: unknown }[] }> {
  const done: string[] = [];
  const failed: { id: string; error: unknown }[] = [];
  for (const id of ids) {
    try {
      await patch(id);
      done.push(id);
    } catch (error) {
      failed.push({ id, error });
    }
  }
  return { done, failed };
}
