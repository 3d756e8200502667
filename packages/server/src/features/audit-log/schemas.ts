// The audit log's query and answer: who did what to which record, when, from where.
import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Nullable, PagingQuery, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';

export const AuditLogQuery = Type.Object({
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only rows by this actor: a user id or a key id (the rows\' actor_id)' })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z_]+(\\.[a-z_]+)?(\\.\\*)?$', description: 'Only this action, e.g. key.revoked; `key.*` for every action on keys' })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only rows about this record (the rows\' target_id)' })),
  site_id: Type.Optional(SiteIdParam),
  from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601; rows at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601; rows before this time' })),
  ...PagingQuery,
}, { additionalProperties: false });
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditEntry = Type.Object({
  id: Uuid,
  created_at: IsoTime,
  actor_type: Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('system')], { description: 'system: the CLI or the engine' }),
  actor_id: Nullable(Type.String({ description: 'The user or key id; null for the system' })),
  action: Type.String({ description: 'What was done, e.g. key.created, alert_rule.updated, privacy.erased' }),
  target_type: Type.String(),
  target_id: Nullable(Type.String()),
  site_id: Nullable(Uuid),
  request_id: Nullable(Type.String({ description: 'The x-request-id of the request that did it; null for the CLI' })),
  ip: Nullable(Type.String({ description: 'The acting client\'s address, as TRUST_PROXY decides it; null for the CLI' })),
  details: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'What changed: the names of changed fields and the values that are not secret' })),
}, { additionalProperties: false });
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditLogPage = Type.Object({
  entries: Type.Array(AuditEntry),
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
}, { additionalProperties: false });
