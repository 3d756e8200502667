// Issues: the list, one issue in full, and triage (a write tool).
import { issueDetailOp, listIssuesOp, triageIssueOp } from '../../features/issues/operations.ts';
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
  description: 'UX issues (one kind of friction on one element of a page), needing attention first by priority (0-100).',
  argumentNotes: {
    status: null, severity: null, assigned_to: null, first_seen_from: null, first_seen_to: null, last_seen_from: null, last_seen_to: null,
    attention: 'true: open, triaged, in_progress or regressed only', type: 'a signal type, e.g. rage_click', q: 'text in the title, label, selector or page',
    sort: 'priority (default): needing attention first; the others: most first',
  },
  operation: listIssuesOp,
  links: [{ at: 'issues[]', kind: 'issue' }],
  pageFields: ['page'],
  summarize: (d, input) => d.total === 0 ? `No issues${filtersOf(input)}.` : lines(
    `${plural(d.total, 'issue')}${filtersOf(input)}, by ${input.sort ?? 'priority'}; showing ${d.offset + 1} to ${d.offset + d.issues.length}:`,
    bullets(d.issues, issueLine, 'issues on this page of results'),
  ),
});

export const getIssueTool = defineTool({
  name: 'get_issue',
  title: 'One issue',
  description: 'One issue in full: evidence, linked sessions (ids for get_session), verifications, the deploy it may come from, activity.',
  listedFields: [
    'id', 'title', 'page', 'element_selector', 'type', 'severity', 'status', 'assigned_to', 'users_7d', 'revenue_at_risk_cents', 'priority', 'priority_reason',
    'first_seen_at', 'last_seen_at', 'ticket', 'dashboard_url', 'evidence', 'linked_sessions', 'verifications', 'deploy_correlation', 'activity',
  ],
  argumentNotes: { issue_id: null },
  operation: issueDetailOp,
  links: [
    { at: '', kind: 'issue' }, { at: 'linked_sessions[]', kind: 'session', id: 'session_id' },
    { at: 'evidence[]', kind: 'session', id: 'session_id' }, { at: 'deploy_correlation', kind: 'deploy', id: 'deploy_id' },
  ],
  summarize: (d) => lines(
    issueLine(d),
    `Page ${d.page}, element ${d.element_selector || '(none)'}, type ${d.type}; severity score ${d.severity_score} (${d.severity_source}); ${plural(d.user_count, 'user')} affected in 24 h, ${plural(d.users_7d, 'user')} in 7 days; first seen ${d.first_seen_at}, last ${d.last_seen_at}.`,
    d.assigned_to && `Assigned to ${d.assigned_to}.`,
    d.linked_sessions.length > 0 && `Linked sessions (get_session): ${(d.linked_sessions as Row[]).slice(0, 5).map((s) => s.session_id).join(', ')}${d.linked_sessions.length > 5 ? ` and ${d.linked_sessions.length - 5} more` : ''}.`,
    d.verifications.length > 0 && `Latest verification: ${(d.verifications[0] as Row).result} (deploy ${(d.verifications[0] as Row).deploy_version ?? 'none'}).`,
    d.deploy_correlation && `First seen within 48 hours after deploy ${(d.deploy_correlation as Row).version}.`,
  ),
});

/** What was written, in words: "status in_progress, assigned to dana@shop.example, note "..."". */
function writtenLine(w: { status?: string; assigned_to?: string | null; severity?: string | null; note?: string; note_repeated: boolean }): string {
  return [
    w.status !== undefined && `status ${w.status}`,
    w.assigned_to !== undefined && (w.assigned_to === null ? 'unassigned' : `assigned to ${w.assigned_to}`),
    w.severity !== undefined && (w.severity === null ? 'severity back to computed' : `severity ${w.severity}`),
    w.note !== undefined && `note "${w.note}"${w.note_repeated ? ' (already left by you within 10 minutes: not added again)' : ''}`,
  ].filter(Boolean).join(', ');
}

export const updateIssueTool = defineTool({
  name: 'update_issue',
  title: 'Triage an issue',
  description: 'Triage an issue: status, note, assignee or severity (one at least). Answers the issue and written: what this call wrote.',
  argumentNotes: { issue_id: null, status: null, note: null, assigned_to: 'null unassigns', severity: 'null: back to the computed one' },
  listedFields: ['id', 'title', 'status', 'severity', 'assigned_to', 'priority', 'written', 'dashboard_url'],
  operation: triageIssueOp,
  links: [{ at: '', kind: 'issue' }],
  summarize: (d) => `Updated: ${writtenLine(d.written)}. Now: ${issueLine(d)}${d.assigned_to ? `, assigned to ${d.assigned_to}` : ''}.`,
});

export const ISSUE_TOOLS = [listIssuesTool, getIssueTool, updateIssueTool];
