// Issues: the list, one issue in full, and triage (a write tool).
import { issueDetail, listIssues, updateIssue } from '../../features/issues/service.ts';
import { IssueDetail, IssueList, IssueParams, ListIssuesQuery, SiteQuery, UpdateIssueBody } from '../../features/issues/schemas.ts';
import { IssueRecord } from '../../domain/records/issue.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, lines, plural } from '../text.ts';

type Row = Record<string, unknown>;

const issueLine = (i: { severity: string; title: string; status: string; session_count: number; id: string }) =>
  `[${i.severity}] ${i.title} (${i.status}, ${plural(i.session_count, 'session')} in 24 h; id ${i.id})`;

export const listIssuesTool = defineTool({
  name: 'list_issues',
  title: 'UX issues',
  description: 'UX issues (clusters of one signal type on one element of one page), most severe first, then most recently seen; filter by status. The open set is open, triaged, in_progress and regressed.',
  input: { query: ListIssuesQuery },
  output: IssueList,
  run: (ctx, input) => listIssues({ ctx, input }),
  summarize: (d, input) => d.total === 0 ? `No issues${input.status ? ` with status ${input.status}` : ''}.` : lines(
    `${plural(d.total, 'issue')}${input.status ? ` with status ${input.status}` : ''}; showing ${d.offset + 1} to ${d.offset + d.issues.length}:`,
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
    `Page ${d.page}, element ${d.element_selector || '(none)'}, type ${d.type}; severity score ${d.severity_score} (${d.severity_source}); ${plural(d.user_count, 'user')} affected in 24 h; first seen ${d.first_seen_at}, last ${d.last_seen_at}.`,
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
