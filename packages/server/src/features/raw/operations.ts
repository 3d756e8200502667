// Raw rows of one table, as an assistant reads them: a bulk read of visitors' data, audited as
// GET /v1/query/raw is. The route (routes.ts) is still written by hand: it audits on the main
// connection while it reads on the read one, and sends its rows without the schema's serializer.
import { recordAudit } from '../../audit/record.ts';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { rawRows } from './raw-rows.ts';
import { RawQuery, RawRows } from './schemas.ts';

export const rawRowsOp = defineOperation({
  name: 'raw.rows',
  summary: 'Raw rows of one table for the site (audited)',
  access: READ_ACCESS,
  input: { query: RawQuery },
  output: RawRows,
  // ctx.db is the main connection outside the query routes (MCP, the CLI), so the audit row is written on it.
  run: async (ctx, input) => {
    const rows = await rawRows({ ctx, input });
    const siteId = input.site_id || ctx.auth.site?.id || null;
    await recordAudit(ctx.db, ctx, { action: 'raw.read', targetType: 'site', targetId: siteId, siteId, details: { table: rows.table, offset: rows.offset, limit: rows.limit, rows: rows.rows.length } });
    return rows;
  },
});

export const RAW_OPERATIONS = [rawRowsOp];
