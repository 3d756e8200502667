// The webhook operations' schemas: what they take and what they answer.
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/jobs.ts';
import { IsoTime, Nullable, NullableIsoTime, OneOf, OpenRecord, PagingQuery, Uuid } from '../../domain/schema-parts.ts';
import { DELIVERY_STATUSES } from '../../domain/statuses.ts';

const Events = Type.Array(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e))), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });

export const WebhookRecord = Type.Object({
  id: Uuid, site_id: Uuid, url: Type.String(), events: Type.Array(OneOf(EVENT_TYPES)), enabled: Type.Boolean(), created_at: IsoTime, updated_at: IsoTime,
  rotation_ends_at: Type.Union([IsoTime, Type.Null()], { description: 'After a secret rotation: until when deliveries are also signed with the previous secret; null otherwise' }),
});

export const RotateSecretBody = Type.Object({
  secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256, description: 'The new secret (default: a generated whsec_ secret, returned once)' })),
  grace_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 168, default: 24, description: 'Hours the previous secret keeps signing beside the new one (0 to 168, default 24); 0 drops it at once' })),
}, { additionalProperties: false });
export type RotateSecretBody = Static<typeof RotateSecretBody>;

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: 'Its place in the log, from 1' }), status_code: Nullable(Type.Integer({ description: 'null when no answer came' })),
  latency_ms: Type.Integer(), error: Nullable(Type.String()), at: IsoTime,
});
export const DeliveryRecord = Type.Object({
  id: Uuid, webhook_id: Uuid, event_type: OneOf([...EVENT_TYPES, 'webhook.test']), status: OneOf(DELIVERY_STATUSES),
  attempts: Type.Integer({ description: 'Attempts in the current series (a manual retry starts a new one)' }),
  next_attempt_at: NullableIsoTime, last_status_code: Nullable(Type.Integer()), last_error: Nullable(Type.String()),
  delivered_at: NullableIsoTime, created_at: IsoTime, updated_at: IsoTime,
  // The body as stored and sent; its data differs by event type, so it stays open.
  payload: OpenRecord('The signed body as sent: type, timestamp, site_id and the event\'s data'),
  attempt_log: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
});

export const ListWebhooksQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });
export const WebhookParams = Type.Object({ id: Type.String() });
export const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });

export const CreateWebhookBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  events: Events,
  secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256 })),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const ListDeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))), ...PagingQuery,
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookRecord) });
/** A registered webhook: a generated secret is in this answer only. */
export const CreatedWebhook = Type.Intersect([WebhookRecord, Type.Object({ secret: Type.Optional(Type.String({ description: 'Only when generated, only here' })) })]);
/** A webhook after its secret was replaced: a generated one is in this answer only. */
export const RotatedWebhook = Type.Intersect([WebhookRecord, Type.Object({ secret: Type.Optional(Type.String({ description: 'The new secret when generated, only here; absent when you gave one' })) })]);
export const DeliveryList = Type.Object({ deliveries: Type.Array(DeliveryRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });
