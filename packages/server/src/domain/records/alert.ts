// The alert as the query API returns it; webhook events carry the same record.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { iso, isoOrNull } from '../../clock.ts';
import type { AlertsTable, Database } from '../../store/tables.ts';
import { TRIGGER_TYPES } from '../alert-triggers.ts';
import { AlertSeverityEnum, AlertStatusEnum, IsoTime, Nullable, NullableIsoTime, OneOf, OpenRecord, Uuid } from '../schema-parts.ts';

export const AlertRecord = Type.Object({
  id: Uuid, site_id: Uuid, rule_id: Nullable(Uuid), rule_name: Nullable(Type.String({ description: 'null when the rule was deleted' })),
  trigger_type: OneOf(TRIGGER_TYPES), page: Nullable(Type.String({ description: 'null for a site-wide trigger' })),
  severity: AlertSeverityEnum, status: AlertStatusEnum, message: Type.String(),
  score_before: Nullable(Type.Number()), score_after: Nullable(Type.Number()), condition_value: Nullable(Type.Number()), threshold: Type.Number(),
  // A snapshot stored with the alert and passed through as stored: its rows stay open, so a row
  // of another shape is still served rather than failing the serializer (a 500).
  breakdown: Type.Array(OpenRecord('A breakdown row: signal, count, weight, weighted_score, percentage'), {
    description: "The page's score breakdown when the alert fired (empty for a site-wide trigger)",
  }),
  fired_at: IsoTime, acknowledged_at: NullableIsoTime, investigating_at: NullableIsoTime, resolved_at: NullableIsoTime,
  resolved_reason: Nullable(Type.String()), last_notified_at: NullableIsoTime, created_at: IsoTime, updated_at: IsoTime,
});

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

/** Alerts with their rule's name (null when the rule was deleted): the rows toAlertRecord takes. */
export const alertsWithRuleName = (db: Kysely<Database>) => db.selectFrom('alerts').leftJoin('alert_rules', 'alert_rules.id', 'alerts.rule_id')
  .selectAll('alerts').select('alert_rules.name as rule_name');
