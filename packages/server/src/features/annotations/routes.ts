// POST /v1/manage/annotations: a note on the timeline.
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { AnnotationRecord } from '../../domain/records/annotation.ts';
import { SiteIdQuery } from '../../domain/schema-parts.ts';
import { CreateAnnotationBody } from './schemas.ts';
import { createAnnotation } from './service.ts';

export async function annotationRoutes(app: App) {
  app.post('/manage/annotations', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: { tags: ['annotations'], summary: 'Add an annotation', querystring: SiteIdQuery, body: CreateAnnotationBody, response: { 201: Envelope(AnnotationRecord) } },
  }, async (request, reply) => {
    reply.code(201);
    // The site from the body or, as on the other /manage routes, the query string.
    return ok(await createAnnotation({ ctx: contextOf(request), input: { ...request.query, ...request.body } }));
  });
}
