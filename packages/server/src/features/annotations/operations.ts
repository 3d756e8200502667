// The annotation operations: a note on the timeline (as the route adds it, and as an assistant retries it).
import { Type } from '@sinclair/typebox';
import { defineOperation, WRITE_ACCESS } from '../../domain/operation.ts';
import { AnnotationRecord } from '../../domain/records/annotation.ts';
import { SiteIdQuery } from '../../domain/schema-parts.ts';
import { MINUTE_MS } from '../../domain/time.ts';
import { CreateAnnotationBody } from './schemas.ts';
import { addAnnotation, createAnnotation } from './service.ts';

export const createAnnotationOp = defineOperation({
  name: 'annotations.create',
  summary: 'Add an annotation',
  access: WRITE_ACCESS,
  // The site from the body or, as on the other /manage routes, the query string.
  http: { method: 'POST', path: '/manage/annotations', surface: 'manage', tags: ['annotations'], status: 201 },
  input: { query: SiteIdQuery, body: CreateAnnotationBody },
  output: AnnotationRecord,
  write: { idempotent: false },
  run: (ctx, input) => createAnnotation({ ctx, input }),
});

/** A retried note within this time is answered with the one added, not added again. */
const ONCE_WITHIN_MS = 10 * MINUTE_MS;

/** Adding a note as an assistant retries it (the MCP tool add_annotation). */
export const addAnnotationOnceOp = defineOperation({
  name: 'annotations.add_once',
  summary: 'Add a note to the site\'s (or a page\'s) timeline; the same note by the same credential within 10 minutes is answered, not added again',
  access: WRITE_ACCESS,
  input: { body: CreateAnnotationBody },
  output: Type.Composite([AnnotationRecord, Type.Object({ repeated: Type.Boolean({ description: 'true: this credential added the same note here within 10 minutes (a retried call): that one is answered, nothing was added' }) })]),
  write: { idempotent: true },
  run: async (ctx, input) => {
    const { annotation, repeated } = await addAnnotation({ ctx, input, onceWithinMs: ONCE_WITHIN_MS });
    return { ...annotation, repeated };
  },
});

export const ANNOTATION_OPERATIONS = [createAnnotationOp, addAnnotationOnceOp];
