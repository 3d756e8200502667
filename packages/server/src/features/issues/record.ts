// The issue as the query API lists it; webhook events carry the same record.
import { iso, isoOrNull } from '../../clock.ts';
import type { UxIssuesTable } from '../../store/tables.ts';
import type { IssueRecord } from './schemas.ts';

export function toIssueRecord(i: UxIssuesTable): IssueRecord {
  return {
    id: i.id, site_id: i.site_id, title: i.title, page: i.page, element_selector: i.element_selector,
    element_label: i.element_label, type: i.type, severity: i.severity, severity_score: i.severity_score,
    severity_source: i.severity_manual ? 'manual' : 'computed', status: i.status, assigned_to: i.assigned_to,
    signal_count: i.signal_count, session_count: i.session_count, user_count: i.user_count,
    first_seen_at: iso(i.first_seen_at), last_seen_at: iso(i.last_seen_at), resolved_at: isoOrNull(i.resolved_at),
    status_changed_at: iso(i.status_changed_at), created_at: iso(i.created_at), updated_at: iso(i.updated_at),
    ticket: i.ticket_id ? { provider: i.ticket_provider!, id: i.ticket_id, url: i.ticket_url! } : null,
  };
}
