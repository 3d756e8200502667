// What the alert rule form asks per trigger. The published API description types a rule's
// `threshold` as any number and its `config` as any object: the bounds per trigger live in the
// server (features/alert-rules/schemas.ts: THRESHOLD_BOUNDS, TRIGGER_CONFIG), so they are
// copied here, and packages/server/test/dashboard-settings-e2e.test.ts fails when they drift.
import type { JsonSchema } from './schema-check.ts';

export const TRIGGERS = ['spike', 'anomaly', 'new_page', 'trend', 'co_occurrence', 'positive', 'budget', 'revenue_threshold', 'stalled_signups'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** The threshold's bounds and what it measures, per trigger (docs/alerts.md). */
export const THRESHOLDS: Record<Trigger, { min: number; max: number; means: string }> = {
  spike: { min: 1, max: 100, means: 'points the score rises' },
  anomaly: { min: 50, max: 99.99, means: 'confidence, %' },
  new_page: { min: 0, max: 100, means: 'score' },
  trend: { min: 0, max: 100, means: 'score' },
  co_occurrence: { min: 1, max: 10_000, means: 'signal count' },
  positive: { min: 0, max: 100, means: 'score' },
  budget: { min: 0, max: 100, means: 'score, the budget\'s target' },
  revenue_threshold: { min: 0, max: 1_000_000_000, means: 'currency units per month' },
  stalled_signups: { min: 0, max: 100, means: 'percent of usual' },
};

/** Triggers that watch the whole site: their alerts have no page and ignore the page pattern. */
export const SITE_LEVEL: readonly Trigger[] = ['revenue_threshold', 'stalled_signups'];

export interface ConfigField { name: string; label: string; schema: JsonSchema; options?: readonly string[] }

/** The trigger's own `config` fields (every trigger also takes `recipients`, asked with the email channel). */
export const CONFIG_FIELDS: Record<Trigger, ConfigField[]> = {
  spike: [], anomaly: [], new_page: [], co_occurrence: [], positive: [], revenue_threshold: [],
  trend: [{ name: 'increase_percent', label: 'Increase over the 7-day baseline (%, default 30)', schema: { type: 'number', minimum: 1, maximum: 1000 } }],
  budget: [{ name: 'period', label: 'Budget period', schema: { enum: ['daily', 'weekly', 'monthly'] }, options: ['daily', 'weekly', 'monthly'] }],
  stalled_signups: [
    { name: 'event', label: 'Event counted (default: the conversion events)', schema: { type: 'string', minLength: 1, maxLength: 128 } },
    { name: 'window_hours', label: 'Window (hours, default 24)', schema: { type: 'integer', minimum: 1, maximum: 168 } },
    { name: 'min_expected', label: 'Fewest expected conversions to judge (default 10)', schema: { type: 'number', minimum: 0, maximum: 1_000_000 } },
  ],
};

export const RECIPIENTS: JsonSchema = { type: 'array', maxItems: 50, uniqueItems: true, items: { type: 'string', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'an email address' } };

/** The schema of a trigger's threshold and config, for lib/schema-check.ts. */
export function triggerSchema(trigger: Trigger): JsonSchema {
  const { min, max } = THRESHOLDS[trigger];
  return {
    type: 'object',
    properties: {
      threshold: { type: 'number', minimum: min, maximum: max },
      config: { type: 'object', additionalProperties: false, properties: { recipients: RECIPIENTS, ...Object.fromEntries(CONFIG_FIELDS[trigger].map((f) => [f.name, f.schema])) } },
    },
  };
}
