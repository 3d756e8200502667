// The ingest wire format (DESIGN.md), defined once. Unknown fields are ignored, so newer
// SDKs never break older servers; known fields are validated. The batch is checked whole;
// each event is checked alone so one bad event never costs the rest of the batch.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export const MAX_EVENTS = 250;
export const INGEST_BODY_LIMIT = 1024 * 1024;

const Hex32 = Type.String({ pattern: '^[0-9a-fA-F]{32}$' });
const Coordinate = Type.Optional(Type.Number());

export const Batch = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 128 })),
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  sid: Hex32,
  vid: Type.Optional(Hex32),
  url: Type.Optional(Type.String({ maxLength: 4096 })),
  ts: Type.Number({ minimum: 0 }),
  env: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' })),
  import: Type.Optional(Type.Boolean()),
  meta: Type.Optional(Type.Object({
    viewport_w: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    viewport_h: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    ua: Type.Optional(Type.String({ maxLength: 1024 })),
    app_version: Type.Optional(Type.String({ maxLength: 128 })),
  })),
  events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_EVENTS }),
});
export type Batch = Static<typeof Batch>;

const base = {
  ts: Type.Number({ minimum: 0 }),
  page: Type.Optional(Type.String({ maxLength: 2048 })),
  id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{16,32}$' })),
};

export const PageviewEvent = Type.Object({
  ...base,
  type: Type.Literal('pageview'),
  referrer_page: Type.Optional(Type.String({ maxLength: 2048 })),
  referrer: Type.Optional(Type.String({ maxLength: 4096 })),
});

export const SignalEvent = Type.Object({
  ...base,
  type: Type.Literal('signal'),
  signal_type: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' }),
  element: Type.Optional(Type.String({ maxLength: 2048 })),
  label: Type.Optional(Type.String({ maxLength: 1000 })),
  confidence: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  hx: Coordinate, hy: Coordinate, vx: Coordinate, vy: Coordinate,
  click_dx: Coordinate, click_dy: Coordinate, el_w: Coordinate, el_h: Coordinate,
  // Burst detail for the session narrative: how many presses, over how long.
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  duration_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
});

export const TrackEvent = Type.Object({
  ...base,
  type: Type.Literal('track'),
  name: Type.String({ minLength: 1, maxLength: 128 }),
  props: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), Type.Unknown())),
});

export const IdentifyEvent = Type.Object({
  ...base,
  type: Type.Literal('identify'),
  user_ref: Type.String({ minLength: 1, maxLength: 256 }),
});

export type PageviewEvent = Static<typeof PageviewEvent>;
export type SignalEvent = Static<typeof SignalEvent>;
export type TrackEvent = Static<typeof TrackEvent>;
export type IdentifyEvent = Static<typeof IdentifyEvent>;
export type WireEvent = PageviewEvent | SignalEvent | TrackEvent | IdentifyEvent;

/** The batch as documented (OpenAPI): the same fields, with each event's shape spelled out. */
export const BatchDocument = Type.Object({
  ...Batch.properties,
  events: Type.Array(Type.Union([PageviewEvent, SignalEvent, TrackEvent, IdentifyEvent]), {
    minItems: 1, maxItems: MAX_EVENTS, description: 'Each event is checked alone: a bad one is rejected with its index, the rest are kept',
  }),
}, {
  description: 'Unknown fields are ignored; known fields are validated.',
  examples: [{
    key: 'svc_pub_...', sid: '6f1c2a9e0b3d4c5e8f7a6b5c4d3e2f10', url: 'https://shop.example/checkout?step=2', ts: 1763800000000, env: 'production',
    meta: { viewport_w: 1280, viewport_h: 720 },
    events: [
      { type: 'pageview', ts: 1763799990000, page: '/checkout', referrer_page: '/cart' },
      { type: 'signal', ts: 1763799995000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.9, hx: 512, hy: 480, vx: 724, vy: 312 },
      { type: 'track', ts: 1763799999000, name: 'subscription_started', props: { amount_cents: 9900 } },
    ],
  }],
});

const compile = <T extends TSchema>(schema: T) => TypeCompiler.Compile(schema);

export const checkBatch = compile(Batch);
export const EVENT_CHECKS = {
  pageview: compile(PageviewEvent),
  signal: compile(SignalEvent),
  track: compile(TrackEvent),
  identify: compile(IdentifyEvent),
} as const;

export type EventType = keyof typeof EVENT_CHECKS;
