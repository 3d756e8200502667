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
export const ErasureResult = Type.Object({
  erased: Type.Object({ sessions: Count, events: Count, signals: Count, issue_evidence: Count }, { additionalProperties: false }),
}, { additionalProperties: false });
export type ErasureResult = Static<typeof ErasureResult>;
