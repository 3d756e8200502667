// The site's annotations since a time, newest first: all of them, or those of one page
// together with the site-wide ones.
import type { Kysely } from 'kysely';
import { toAnnotation, type AnnotationRecord } from '../../domain/records/annotation.ts';
import type { Database } from '../../store/tables.ts';

export async function annotationsSince(db: Kysely<Database>, siteId: string, since: number, page: string | null): Promise<AnnotationRecord[]> {
  let query = db.selectFrom('annotations').selectAll().where('site_id', '=', siteId).where('created_at', '>=', since);
  if (page) query = query.where((eb) => eb.or([eb('page', 'is', null), eb('page', '=', page)]));
  return (await query.orderBy('created_at', 'desc').execute()).map(toAnnotation);
}
