import { Type, type Static } from '@sinclair/typebox';
import { KEY_TYPES, SCOPES } from '../../auth/api-keys.ts';
import { IsoTime, Nullable, OneOf, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';

/** Where a key stands: `expired` once `expires_at` has passed (401 expired_key), `revoked` once revoked (401 invalid_key). */
export const KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export const KeyRecord = Type.Object({
  id: Uuid,
  org_id: Uuid,
  site_id: Nullable(Uuid),
  key_type: OneOf(KEY_TYPES),
  name: Nullable(Type.String()),
  scopes: Type.Array(OneOf(SCOPES)),
  key_hint: Type.String({ description: 'Prefix and last four characters; the key itself is never shown again' }),
  created_by: Nullable(Type.String()),
  created_at: IsoTime,
  expires_at: Type.Union([IsoTime, Type.Null()], { description: 'When the key stops working (401 expired_key); null: never' }),
  last_used_at: Type.Union([IsoTime, Type.Null()], { description: 'When the key last authenticated, to the minute (written at most once a minute per key); null: never used' }),
  status: OneOf(KEY_STATUSES, 'active: it authenticates; expired: its expires_at has passed (401 expired_key); revoked: revoked (401 invalid_key), listed only with include_revoked=true'),
});
export type KeyRecord = Static<typeof KeyRecord>;

export const CreatedKey = Type.Intersect([KeyRecord, Type.Object({
  key: Type.String({ description: 'The raw key, shown only in this response' }),
})]);

export const CreateKeyBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64, description: 'Omit for an org-scoped key' })),
  key_type: Type.Union(KEY_TYPES.map((t) => Type.Literal(t))),
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false, examples: [{ site_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f', key_type: 'secret', scopes: ['query:read'], name: 'reporting' }] });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const KeyParams = Type.Object({ id: Type.String() });

export const ListKeysQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  include_revoked: Type.Optional(Type.Boolean({ description: 'true: revoked keys too (status revoked); default false: active and expired keys only' })),
});
export type ListKeysQuery = Static<typeof ListKeysQuery>;
