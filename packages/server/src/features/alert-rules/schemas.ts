import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { IsoTime, Nullable, OneOf, Uuid } from '../../domain/schema-parts.ts';
import { TRIGGER_TYPES, type TriggerType } from '../../domain/alert-triggers.ts';

export const CHANNELS = ['email', 'slack', 'webhook', 'mcp', 'pagerduty'] as const;

/** Threshold bounds per trigger (DOMAIN.md section 5). */
export const THRESHOLD_BOUNDS: Record<TriggerType, [number, number]> = {
  spike: [1, 100], anomaly: [50, 99.99], new_page: [0, 100], trend: [0, 100], co_occurrence: [1, 10_000],
  positive: [0, 100], budget: [0, 100], revenue_threshold: [0, 1_000_000_000], stalled_signups: [0, 100],
};

const Recipients = Type.Optional(Type.Array(Type.String({ format: 'email', maxLength: 254 }), { maxItems: 50, uniqueItems: true }));
const strict = <T extends Record<string, TSchema>>(props: T) => Type.Object({ recipients: Recipients, ...props }, { additionalProperties: false });

/** Trigger-specific config; every trigger may name email `recipients`. */
export const TRIGGER_CONFIG = {
  spike: strict({}),
  anomaly: strict({}),
  new_page: strict({}),
  trend: strict({ increase_percent: Type.Optional(Type.Number({ minimum: 1, maximum: 1000 })) }),
  co_occurrence: strict({}),
  positive: strict({}),
  budget: strict({ period: Type.Optional(Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')])) }),
  revenue_threshold: strict({}),
  stalled_signups: strict({
    event: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    window_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168 })),
    min_expected: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  }),
} as const;
// TypeBox's compiler checks formats through its own registry; Ajv (routes) has its own.
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value));
export const CONFIG_CHECKS = Object.fromEntries(Object.entries(TRIGGER_CONFIG).map(([k, v]) => [k, TypeCompiler.Compile(v as TSchema)])) as unknown as Record<TriggerType, ReturnType<typeof TypeCompiler.Compile>>;

const PagePattern = Type.String({ minLength: 1, maxLength: 512, description: '/checkout exact, /checkout* prefix, * all pages' });
const Trigger = Type.Union(TRIGGER_TYPES.map((t) => Type.Literal(t)));
const Channels = Type.Array(Type.Union(CHANNELS.map((c) => Type.Literal(c))), { maxItems: CHANNELS.length, uniqueItems: true });

export const AlertRuleRecord = Type.Object({
  id: Uuid, site_id: Uuid, name: Type.String(), trigger_type: OneOf(TRIGGER_TYPES), threshold: Type.Number(),
  cooldown_minutes: Type.Integer(), channels: Type.Array(OneOf(CHANNELS)), page_pattern: Type.String(),
  slack_channel: Nullable(Type.String()), config: Type.Record(Type.String(), Type.Unknown(), { description: 'The trigger\'s own settings; which fields depends on trigger_type' }), enabled: Type.Boolean(),
  undeliverable_channels: Type.Array(OneOf(CHANNELS), { description: 'Channels of the rule whose notifications fail now with no_integration: slack or pagerduty without the site\'s integration, email without SMTP_URL on the server' }),
  created_at: IsoTime, updated_at: IsoTime,
});
export type AlertRuleRecord = Static<typeof AlertRuleRecord>;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  threshold: Type.Number(),
  cooldown_minutes: Type.Integer({ minimum: 1, maximum: 1440 }),
  channels: Channels,
  page_pattern: PagePattern,
  slack_channel: Nullable(Type.String({ minLength: 1, maxLength: 80 })),
  config: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
};

export const CreateAlertRuleBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  name: fields.name,
  trigger_type: Trigger,
  threshold: fields.threshold,
  cooldown_minutes: Type.Optional(fields.cooldown_minutes),
  channels: Type.Optional(fields.channels),
  page_pattern: Type.Optional(fields.page_pattern),
  slack_channel: Type.Optional(fields.slack_channel),
  config: Type.Optional(fields.config),
  enabled: Type.Optional(fields.enabled),
}, { additionalProperties: false, examples: [{ name: 'Checkout spike', trigger_type: 'spike', threshold: 20, cooldown_minutes: 60, channels: ['webhook'], page_pattern: '/checkout*' }] });
export type CreateAlertRuleBody = Static<typeof CreateAlertRuleBody>;

export const UpdateAlertRuleBody = Type.Object({
  name: Type.Optional(fields.name),
  threshold: Type.Optional(fields.threshold),
  cooldown_minutes: Type.Optional(fields.cooldown_minutes),
  channels: Type.Optional(fields.channels),
  page_pattern: Type.Optional(fields.page_pattern),
  slack_channel: Type.Optional(fields.slack_channel),
  config: Type.Optional(fields.config),
  enabled: Type.Optional(fields.enabled),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateAlertRuleBody = Static<typeof UpdateAlertRuleBody>;

export const ListAlertRulesQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });
export const AlertRuleList = Type.Object({ rules: Type.Array(AlertRuleRecord) });
export const AlertRuleParams = Type.Object({ rule_id: Type.String() });
