// The annotation as the API returns it: on its own, in page detail and beside trends.
import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Nullable, Uuid } from '../schema-parts.ts';
import { iso } from '../../clock.ts';
import type { AnnotationsTable } from '../../store/tables.ts';

export const AnnotationRecord = Type.Object({
  id: Uuid, site_id: Uuid, page: Nullable(Type.String()), message: Type.String(), author: Nullable(Type.String()), created_at: IsoTime,
});
export type AnnotationRecord = Static<typeof AnnotationRecord>;

export const toAnnotation = (r: AnnotationsTable): AnnotationRecord => ({ ...r, created_at: iso(r.created_at) });
