// Issues: the list, one issue in full, and triage (a write tool).
import { issueDetail, listIssues, updateIssue } from '../../features/issues/service.ts';
import { IssueDetail, IssueList, IssueParams, ListIssuesQuery, SiteQuery, UpdateIssueBody } from '../../features/issues/schemas.ts';
import { IssueRecord } from '../../domain/records/issue.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, lines, plural } from '../text.ts';

type Row = Record<string, unknown>;

const issueLine = (i: { severity: string; title: string; status: string; session_count: number; id: string; priority: number; priority_reason: string }) =>
  `[${i.severity}] ${i.title} (${i.status}, ${plural(i.session_count, 'session')} in 24 h; priority ${i.priority} of 100: ${i.priority_reason}; id ${i.id})`;

/** The filters an answer was given, in words: " (status open, severity high)". */
function filtersOf(input: Record<string, unknown>): string {
  const named = ['status', 'attention', 'severity', 'page', 'type', 'assigned_to', 'q']
    .filter((k) => input[k] !== undefined)
    .map((k) => (k === 'attention' ? (input[k] ? 'needing attention' : 'not needing attention') : `${k === 'q' ? 'matching' : k.replace('_', ' ')} ${String(input[k])}`));
  return named.length ? ` (${named.join(', ')})` : '';
}

export const listIssuesTool = defineTool({
  name: 'list_issues',
  title: 'UX issues',
  description: 'UX issues (clusters of one signal type on one element of one page), by priority by default: the issues needing attention (open, triaged, in_progress, regressed) first, the highest priority first (0-100 from users affected in 7 days, severity, signal weight and revenue at risk), regressed before others at equal priority. '
    + 'Filter by status, attention (true: needing attention), severity, page, type (signal type), assigned_to, q (text in the title, label, selector or page); sort by priority, severity, users, revenue or last_seen.',
  input: { query: ListIssuesQuery },
  output: IssueList,
  pageFields: ['page'],
  run: (ctx, input) => listIssues({ ctx, input }),
  summarize: (d, input) => d.total === 0 ? `No issues${filtersOf(input)}.` : lines(
    `${plural(d.total, 'issue')}${filtersOf(input)}, by ${input.sort ?? 'priority'}; showing ${d.offset + 1} to ${d.offset + d.issues.length}:`,
    bullets(d.issues, issueLine, 'issues on this page of results'),
  ),
});

export const getIssueTool = defineTool({
  name: 'get_issue',
  title: 'One issue',
  description: 'One issue with its evidence (recent signals with their sessions), linked sessions, verification history after deploys, the deploy it may have come from, and its activity.',
  input: { params: IssueParams, query: SiteQuery },
  output: IssueDetail,
  run: (ctx, input) => issueDetail({ ctx, input }),
  summarize: (d) => lines(
    issueLine(d),
    `Page ${d.page}, element ${d.element_selector || '(none)'}, type ${d.type}; severity score ${d.severity_score} (${d.severity_source}); ${plural(d.user_count, 'user')} affected in 24 h, ${plural(d.users_7d, 'user')} in 7 days; first seen ${d.first_seen_at}, last ${d.last_seen_at}.`,
    d.assigned_to && `Assigned to ${d.assigned_to}.`,
    d.linked_sessions.length > 0 && `Linked sessions (get_session): ${(d.linked_sessions as Row[]).slice(0, 5).map((s) => s.session_id).join(', ')}${d.linked_sessions.length > 5 ? ` and ${d.linked_sessions.length - 5} more` : ''}.`,
    d.verifications.length > 0 && `Latest verification: ${(d.verifications[0] as Row).result} (deploy ${(d.verifications[0] as Row).deploy_version ?? 'none'}).`,
    d.deploy_correlation && `First seen within 48 hours after deploy ${(d.deploy_correlation as Row).version}.`,
  ),
});

export const updateIssueTool = defineTool({
  name: 'update_issue',
  title: 'Triage an issue',
  description: 'Change an issue: status (open, triaged, in_progress, verified, resolved, ignored), a note, the assignee, or a severity set by hand. Give at least one of them. Resolved issues are verified against the next production deploy; ignored ones stop counting toward scores and alerts.',
  input: { params: IssueParams, query: SiteQuery, body: UpdateIssueBody },
  output: IssueRecord,
  write: { idempotent: false },
  run: (ctx, input) => updateIssue({ ctx, input }),
  summarize: (d) => `Updated: ${issueLine(d)}${d.assigned_to ? `, assigned to ${d.assigned_to}` : ''}.`,
});

export const ISSUE_TOOLS = [listIssuesTool, getIssueTool, updateIssueTool];
