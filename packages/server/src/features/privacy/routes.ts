import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import type { RouteDocs } from '../../http/openapi.ts';
import { ErasureResult, SubjectQuery, SUBJECT_KEYS } from './schemas.ts';
import { eraseSubject, exportSubject } from './service.ts';

// A person's data: a user token with the admin role, like keys and the audit log.
const access = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;
const docs: RouteDocs = { exactlyOneOf: SUBJECT_KEYS };

export async function privacyRoutes(app: App) {
  const { secrets } = app.services;

  app.get('/manage/privacy/export', {
    config: { access, docs },
    schema: {
      tags: ['privacy'], summary: 'Everything stored about one person (by visitor_id or user_ref): their sessions, events and signals, as streamed JSON',
      querystring: SubjectQuery,
      response: {
        200: {
          description: 'The envelope, streamed: data holds subject, exported_at, sessions, events and signals (every stored field)',
          content: { 'application/json': { schema: Type.Unsafe<Readable>({ type: 'object', properties: { data: { type: 'object', description: 'subject, exported_at, sessions, events and signals, every stored field' }, error: { type: 'null' } } }) } },
        },
      },
    },
  }, async (request, reply) => {
    const file = await exportSubject({ ctx: contextOf(request), input: request.query, secrets });
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return reply.send(Readable.from(file.chunks));
  });

  app.delete('/manage/privacy/subject', {
    config: { access, docs },
    schema: {
      tags: ['privacy'], summary: 'Erase one person (by visitor_id or user_ref): their sessions, events, signals and issue evidence; aggregates stay. Erasing again finds nothing',
      querystring: SubjectQuery, response: { 200: Envelope(ErasureResult) },
    },
  }, async (request) => ok(await eraseSubject({ ctx: contextOf(request), input: request.query, secrets })));
}
