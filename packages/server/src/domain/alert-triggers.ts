// The nine alert triggers of DOMAIN.md: rules name one, the pipeline evaluates each.
export const TRIGGER_TYPES = ['spike', 'anomaly', 'new_page', 'trend', 'co_occurrence', 'positive', 'budget', 'revenue_threshold', 'stalled_signups'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
