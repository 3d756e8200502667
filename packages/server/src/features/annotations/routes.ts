// POST /v1/manage/annotations: a note on the timeline (site-wide, or for one page), shown in
// page detail and beside trends.
import { Type } from '@sinclair/typebox';
import { v7 as uuidv7 } from 'uuid';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import { actorOf } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { IsoTime, Nullable, SiteIdQuery, Uuid } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';

export const AnnotationRecord = Type.Object({
  id: Uuid, site_id: Uuid, page: Nullable(Type.String()), message: Type.String(), author: Nullable(Type.String()), created_at: IsoTime,
});

const CreateAnnotationBody = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  message: Type.String({ minLength: 1, maxLength: 2000 }),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
}, { additionalProperties: false });

export const toAnnotation = (r: { id: string; site_id: string; page: string | null; message: string; author: string | null; created_at: number }) =>
  ({ ...r, created_at: iso(r.created_at) });

export async function annotationRoutes(app: App) {
  const { store, clock } = app.services;

  app.post('/manage/annotations', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: { tags: ['annotations'], summary: 'Add an annotation', querystring: SiteIdQuery, body: CreateAnnotationBody, response: { 201: Envelope(AnnotationRecord) } },
  }, async (request, reply) => {
    const auth = request.auth!;
    // The site from the body or, as on the other /manage routes, the query string.
    const site = await resolveSite({ db: store.db, auth: auth }, request.body.site_id ?? request.query.site_id);
    const message = request.body.message.trim();
    if (!message) throw invalidInput('message', 'must not be blank');
    const page = request.body.page === undefined ? null : await pageParam(store.db, site.id, request.body.page);
    const now = clock.now();
    const row = { id: uuidv7(), site_id: site.id, page, message, author: actorOf(auth).label, created_at: now };
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('annotations').values(row).execute();
      await recordAudit(trx, auth, { action: 'annotation.created', targetType: 'annotation', targetId: row.id, siteId: site.id }, now);
    });
    reply.code(201);
    return ok(toAnnotation(row));
  });
}
