// Data-subject requests: who (a visitor id or a user_ref from identify) on which site.
import { Type, type Static } from '@sinclair/typebox';
import { SiteIdParam } from '../../domain/schema-parts.ts';

/** Who the request is about: exactly one of these (the service checks it; the document states it). */
export const SUBJECT_KEYS = ['visitor_id', 'user_ref'] as const;

export const SubjectQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  visitor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The SDK\'s anonymous visitor id (`vid`)' })),
  user_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The id your app gave the person with identify()' })),
}, { additionalProperties: false });
export type SubjectQuery = Static<typeof SubjectQuery>;

const Count = Type.Integer({ minimum: 0 });
export const ErasureStorage = Type.Object({
  overwritten: Type.Boolean({ description: 'true on SQLite: the rows\' bytes were overwritten with zeros in the file (secure_delete). false on PostgreSQL: the deleted rows stay in the table files as dead tuples until VACUUM (see docs/privacy.md)' }),
  wal_truncated: Type.Union([Type.Boolean(), Type.Null()], { description: 'SQLite: the write-ahead log was checkpointed and truncated, so it keeps no earlier copy of the rows (false: a reader held it; erasing again retries). null on PostgreSQL' }),
  note: Type.String({ description: 'What remains elsewhere: backups taken before the erasure still hold the person\'s data' }),
}, { additionalProperties: false, description: 'What the erasure did to the store\'s files, and what it cannot reach' });
export type ErasureStorage = Static<typeof ErasureStorage>;

export const ErasureResult = Type.Object({
  erased: Type.Object({ sessions: Count, events: Count, signals: Count, issue_evidence: Count, clips: Type.Integer({ minimum: 0, description: 'Friction clips and page snapshots of the person\'s sessions' }) }, { additionalProperties: false }),
  storage: ErasureStorage,
}, { additionalProperties: false });
export type ErasureResult = Static<typeof ErasureResult>;
