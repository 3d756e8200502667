// GET /v1/query/raw (paged rows of one table) and GET /v1/query/export/events.csv (every
// event, streamed).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { ExportQuery, RawQuery, RawRows } from './schemas.ts';
import { rawRows } from './raw-rows.ts';
import { EXPORT_HEADER, eventsCsv } from './events-csv.ts';

export async function rawRoutes(app: App) {
  app.get('/query/raw', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Raw rows of one table for the site',
      querystring: RawQuery,
      response: { 200: Envelope(RawRows) },
    },
  }, async (request) => ok(await rawRows({ ctx: contextOf(request), input: request.query })));

  app.get('/query/export/events.csv', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Every raw event of the site as CSV (RFC 4180), streamed',
      querystring: ExportQuery,
      response: {
        200: {
          description: `CSV with a header row: ${EXPORT_HEADER.join(', ')}`,
          content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string', examples: [`${EXPORT_HEADER.join(',')}\r\n`] }) } },
        },
      },
    },
  }, async (request, reply) => {
    const csv = await eventsCsv({ ctx: contextOf(request), input: request.query });
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${csv.filename}"`);
    return reply.send(Readable.from(csv.chunks));
  });
}
