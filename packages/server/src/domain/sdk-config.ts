import { Type, type Static } from '@sinclair/typebox';

const Name = Type.String({ minLength: 1, maxLength: 128 });
const SignalType = { pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 };
export const ENVIRONMENT_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export const RevenueConfig = Type.Object({
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, default USD' })),
  average_value_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000_000 })),
  plan_values: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0, maximum: 10_000_000_000 }), { maxProperties: 100 })),
  conversion_events: Type.Optional(Type.Array(Name, { maxItems: 50, uniqueItems: true })),
}, { additionalProperties: false });

/** Most unmask selectors a config lists, and the longest one. */
export const CLIPS_UNMASK_MAX = 50;
export const CLIPS_SELECTOR_MAX_LENGTH = 256;

/** Friction clips and page snapshots (issue 28): off unless a site turns them on. */
export const ClipsConfig = Type.Object({
  enabled: Type.Boolean({ description: 'Record friction clips and page snapshots in browsers of this environment (default false)' }),
  unmask: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: CLIPS_SELECTOR_MAX_LENGTH }), {
    maxItems: CLIPS_UNMASK_MAX, uniqueItems: true,
    description: `CSS selectors whose text and inputs are recorded unmasked (at most ${CLIPS_UNMASK_MAX}, each at most ${CLIPS_SELECTOR_MAX_LENGTH} characters); everything else is masked in the browser. Elements marked data-mallard-block are never recorded`,
  })),
  allow_media: Type.Optional(Type.Boolean({ description: 'Record images, video, canvas and iframes (default false: blocked)' })),
}, { additionalProperties: false });
export type ClipsConfig = Static<typeof ClipsConfig>;

/** Every setting, each optional; in a PATCH a key set to null is removed. */
export const SdkConfigPatch = Type.Object({
  revenue_config: Type.Optional(Type.Union([RevenueConfig, Type.Null()])),
  signal_weights: Type.Optional(Type.Union([Type.Record(Type.String(SignalType), Type.Number({ minimum: 0, maximum: 100 }), { maxProperties: 200 }), Type.Null()])),
  signals: Type.Optional(Type.Union([Type.Record(Type.String(SignalType), Type.Object(
    { enabled: Type.Optional(Type.Boolean()) },
    { additionalProperties: Type.Number({ minimum: 0, maximum: 10_000_000 }), description: 'enabled, plus numeric detector thresholds' },
  ), { maxProperties: 200 }), Type.Null()])),
  ignore_selectors: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 100 }), Type.Null()])),
  sample_rate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
  page_groups: Type.Optional(Type.Union([Type.Array(Type.Object({
    match: Type.String({ minLength: 1, maxLength: 512, description: 'A regular expression over the grouped path' }),
    page: Type.String({ minLength: 1, maxLength: 512, pattern: '^/' }),
  }, { additionalProperties: false }), { maxItems: 100 }), Type.Null()])),
  privacy: Type.Optional(Type.Union([Type.Object({
    respect_dnt: Type.Optional(Type.Boolean()),
    require_consent: Type.Optional(Type.Boolean()),
    cookieless: Type.Optional(Type.Boolean()),
  }, { additionalProperties: false }), Type.Null()])),
  verification_environments: Type.Optional(Type.Union([Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), { maxItems: 20 }), Type.Null()])),
  clips: Type.Optional(Type.Union([ClipsConfig, Type.Null()])),
}, { additionalProperties: false, minProperties: 1 });
export type SdkConfigPatch = Static<typeof SdkConfigPatch>;
export type SdkConfig = { [K in keyof SdkConfigPatch]?: Exclude<SdkConfigPatch[K], null> };

export const SdkConfigRecord = Type.Object({
  site_id: Type.String(),
  environment: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'The environment\'s SDK config as stored: the fields PATCH /v1/manage/sdk-config/{environment} takes' }),
  updated_at: Type.Union([Type.String(), Type.Null()]),
});
