// Raw rows of one table (GET /v1/query/raw, the MCP tool query_raw) and every event as CSV (GET
// /v1/query/export/events.csv, streamed): bulk reads of visitors' data, so each call leaves one
// audit row (on the main connection, after the read is known to be allowed and valid).
import { Type } from '@sinclair/typebox';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { EXPORT_HEADER, eventsCsv } from './events-csv.ts';
import { rawRows } from './raw-rows.ts';
import { ExportQuery, RawQuery, RawRows } from './schemas.ts';

/** The audit row of a bulk read: the read ran (and checked the site) on the read connection; the row is written on the main one. */
function auditBulkRead(ctx: ServiceContext, siteIdAsked: string | undefined, action: string, details: Record<string, unknown>) {
  const siteId = siteIdAsked || ctx.auth.site?.id || null;
  return recordAudit(ctx.writeDb ?? ctx.db, ctx, { action, targetType: 'site', targetId: siteId, siteId, details });
}

export const rawRowsOp = defineOperation({
  name: 'raw.rows',
  summary: 'Raw rows of one table for the site',
  access: READ_ACCESS,
  // Each row's schema is open (the table's exposed columns, which serializeRow picks), so the
  // serializer Fastify compiles from it checks nothing JSON.stringify does not, and took most of
  // the route's time: up to 1,000 rows of 15 to 20 columns (BENCHMARKS-HISTORY.md, "reads", the events export of 2026-11-26).
  http: { method: 'GET', path: '/query/raw', surface: 'query', tags: ['query'], send: 'json' },
  input: { query: RawQuery },
  output: RawRows,
  run: async (ctx, input) => {
    const rows = await rawRows({ ctx, input });
    await auditBulkRead(ctx, input.site_id, 'raw.read', { table: rows.table, offset: rows.offset, limit: rows.limit, rows: rows.rows.length });
    return rows;
  },
});

export const eventsCsvOp = defineOperation({
  name: 'raw.events_csv',
  summary: 'Every raw event of the site as CSV (RFC 4180), streamed',
  access: READ_ACCESS,
  http: {
    method: 'GET', path: '/query/export/events.csv', surface: 'query', tags: ['query'],
    download: { mediaType: 'text/csv', description: `CSV with a header row: ${EXPORT_HEADER.join(', ')}` },
  },
  input: { query: ExportQuery },
  output: Type.Unsafe({ type: 'string', examples: [`${EXPORT_HEADER.join(',')}\r\n`] }),
  run: async (ctx, input) => {
    // The site and the range are checked before the row is written; the rows are read as the file is sent.
    const csv = await eventsCsv({ ctx, input });
    await auditBulkRead(ctx, input.site_id, 'events.exported', { from: input.from ?? null, to: input.to ?? null, raw: input.raw === '1' });
    return csv;
  },
});

export const RAW_OPERATIONS = [rawRowsOp, eventsCsvOp];
