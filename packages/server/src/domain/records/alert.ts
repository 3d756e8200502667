// The alert as the query API returns it; webhook events carry the same record.
import { iso, isoOrNull } from '../../clock.ts';
import type { AlertsTable } from '../../store/tables.ts';

export function toAlertRecord(a: AlertsTable & { rule_name?: string | null }) {
  return {
    id: a.id, site_id: a.site_id, rule_id: a.rule_id, rule_name: a.rule_name ?? null, trigger_type: a.trigger_type, page: a.page,
    severity: a.severity, status: a.status, message: a.message, score_before: a.score_before, score_after: a.score_after,
    condition_value: a.condition_value, threshold: a.threshold, breakdown: JSON.parse(a.breakdown),
    fired_at: iso(a.fired_at), acknowledged_at: isoOrNull(a.acknowledged_at), investigating_at: isoOrNull(a.investigating_at),
    resolved_at: isoOrNull(a.resolved_at), resolved_reason: a.resolved_reason, last_notified_at: isoOrNull(a.last_notified_at),
    created_at: iso(a.created_at), updated_at: iso(a.updated_at),
  };
}
