// The closed lists of statuses and severities that routes, the pipeline and the MCP tools share.
export const SETTABLE_ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored'] as const;
export const ISSUE_STATUSES = [...SETTABLE_ISSUE_STATUSES, 'regressed'] as const;
/** Issues still needing work: they count toward revenue at risk, scores' open issues and alerts. */
export const OPEN_ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'regressed'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALERT_STATUSES = ['fired', 'acknowledged', 'investigating', 'resolved'] as const;
/** Alerts not yet resolved: they hold their rule's cooldown and show as active. */
export const ACTIVE_ALERT_STATUSES = ['fired', 'acknowledged', 'investigating'] as const;
