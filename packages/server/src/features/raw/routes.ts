// GET /v1/query/export/events.csv (every event, streamed). A bulk read of visitors' data (as
// GET /v1/query/raw is, the catalog's rawRowsOp), so it leaves one audit row (one insert on
// the main connection, after the read is known to be allowed and valid).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { ExportQuery } from './schemas.ts';
import { EXPORT_HEADER, eventsCsv } from './events-csv.ts';

export async function rawRoutes(app: App) {
  const { store } = app.services;
  // The read ran (and checked the site) on the read connection; the row is written on the main one.
  const audit = (ctx: ServiceContext, siteId: string | undefined, action: string, details: Record<string, unknown>) =>
    recordAudit(store.db, ctx, { action, targetType: 'site', targetId: siteId || ctx.auth.site?.id || null, siteId: siteId || ctx.auth.site?.id || null, details });

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
    const ctx = contextOf(request);
    const csv = await eventsCsv({ ctx, input: request.query });
    const { from, to, raw } = request.query;
    await audit(ctx, request.query.site_id, 'events.exported', { from: from ?? null, to: to ?? null, raw: raw === '1' });
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${csv.filename}"`);
    return reply.send(Readable.from(csv.chunks));
  });
}
