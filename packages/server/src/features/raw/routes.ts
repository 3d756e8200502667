// GET /v1/query/raw (paged rows of one table) and GET /v1/query/export/events.csv (every
// event, streamed). Both are bulk reads of visitors' data, so each leaves one audit row (one
// insert on the main connection, after the read is known to be allowed and valid).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { ExportQuery, RawQuery, RawRows } from './schemas.ts';
import { rawRows } from './raw-rows.ts';
import { EXPORT_HEADER, eventsCsv } from './events-csv.ts';

export async function rawRoutes(app: App) {
  const { store } = app.services;
  // The read ran (and checked the site) on the read connection; the row is written on the main one.
  const audit = (ctx: ServiceContext, siteId: string | undefined, action: string, details: Record<string, unknown>) =>
    recordAudit(store.db, ctx, { action, targetType: 'site', targetId: siteId || ctx.auth.site?.id || null, siteId: siteId || ctx.auth.site?.id || null, details });

  app.get('/query/raw', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Raw rows of one table for the site',
      querystring: RawQuery,
      response: { 200: Envelope(RawRows) },
    },
  }, async (request, reply) => {
    const ctx = contextOf(request);
    const rows = await rawRows({ ctx, input: request.query });
    await audit(ctx, request.query.site_id, 'raw.read', { table: rows.table, offset: rows.offset, limit: rows.limit, rows: rows.rows.length });
    // Each row's schema is open (the table's exposed columns, which serializeRow picks), so the
    // serializer Fastify compiles from it checks nothing JSON.stringify does not, and took most of
    // the route's time: up to 1,000 rows of 15 to 20 columns (BENCHMARKS-HISTORY.md, "reads", the events export of 2026-11-26).
    return (reply as FastifyReply).type('application/json; charset=utf-8').send(JSON.stringify(ok(rows)));
  });

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
