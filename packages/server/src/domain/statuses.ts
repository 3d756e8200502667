// The closed vocabularies (statuses, severities, trends, duck states) that routes, the
// pipeline and the MCP tools share; response schemas build their enums from these lists.
export const SETTABLE_ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored'] as const;
export const ISSUE_STATUSES = [...SETTABLE_ISSUE_STATUSES, 'regressed'] as const;
/** Issues still needing work: they count toward revenue at risk, scores' open issues and alerts. */
export const OPEN_ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'regressed'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What an entry of an issue's activity records: its detection, a status change, an assignment, a severity set by hand, a note. */
export const ISSUE_ACTIVITY_KINDS = ['created', 'status', 'assignment', 'severity', 'note'] as const;
export type IssueActivityKind = (typeof ISSUE_ACTIVITY_KINDS)[number];

export const ALERT_STATUSES = ['fired', 'acknowledged', 'investigating', 'resolved'] as const;
/** Alerts not yet resolved: they hold their rule's cooldown and show as active. */
export const ACTIVE_ALERT_STATUSES = ['fired', 'acknowledged', 'investigating'] as const;
/** What the alert engine rates an alert (pipeline/triggers.ts alertSeverity); not an issue's severity. */
export const ALERT_SEVERITIES = ['warning', 'high', 'critical'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** A score's direction against its 7-day baseline (DOMAIN.md section 3). */
export const TRENDS = ['up', 'down', 'stable'] as const;
export type Trend = (typeof TRENDS)[number];
/** The duck's state by score band, calmest first (DOMAIN.md section 3). */
export const DUCK_STATES = ['calm', 'watching', 'alert', 'flustered', 'critical'] as const;
export type DuckState = (typeof DUCK_STATES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
