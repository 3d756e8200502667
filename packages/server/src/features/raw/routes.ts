// GET /v1/query/raw (paged rows of one table) and GET /v1/query/export/events.csv (every
// event, streamed in keyset-paged chunks so memory stays flat however many rows there are).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { Store } from '../../store/db.ts';
import { csvRow } from './csv.ts';
import { RAW_TABLE_NAMES, RAW_TABLES, serializeRow, type RawTableName } from './tables.ts';

export const RAW_DEFAULT_LIMIT = 100;
export const RAW_MAX_LIMIT = 1000;
const EXPORT_CHUNK = 2000;

const EXPORT_COLUMNS = ['id', 'sid', 'visitor_id', 'type', 'page', 'occurred_at', 'name', 'signal_type', 'element', 'label', 'referrer_page', 'environment', 'props'] as const;
const EXPORT_HEADER = ['id', 'session_id', 'visitor_id', 'type', 'page', 'occurred_at', 'name', 'signal_type', 'element_selector', 'label', 'referrer_page', 'environment', 'props'];

function parseTime(value: string | undefined, field: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidInput(field, 'must be an ISO 8601 time');
  return ms;
}

async function* exportEvents(store: Store, siteId: string, from: number | null, to: number | null) {
  yield csvRow(EXPORT_HEADER);
  let after: { at: number; id: string } | null = null;
  for (;;) {
    let query = store.db.selectFrom('events').select(EXPORT_COLUMNS).where('site_id', '=', siteId);
    if (from !== null) query = query.where('occurred_at', '>=', from);
    if (to !== null) query = query.where('occurred_at', '<', to);
    if (after) {
      const { at, id } = after;
      query = query.where((eb) => eb.or([eb('occurred_at', '>', at), eb.and([eb('occurred_at', '=', at), eb('id', '>', id)])]));
    }
    const rows = await query.orderBy('occurred_at', 'asc').orderBy('id', 'asc').limit(EXPORT_CHUNK).execute();
    if (rows.length === 0) return;
    let chunk = '';
    for (const r of rows) {
      chunk += csvRow([r.id, r.sid, r.visitor_id, r.type, r.page, new Date(r.occurred_at).toISOString(), r.name, r.signal_type, r.element, r.label, r.referrer_page, r.environment, r.props]);
    }
    yield chunk;
    const last = rows[rows.length - 1];
    after = { at: last.occurred_at, id: last.id };
    if (rows.length < EXPORT_CHUNK) return;
  }
}

export async function rawRoutes(app: App) {
  const { store } = app.services;

  app.get('/query/raw', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Raw rows of one table for the site',
      querystring: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        table: Type.String({ maxLength: 64, description: RAW_TABLE_NAMES.join(', ') }),
        sort: Type.Optional(Type.String({ maxLength: 64, description: 'A column of the table; default its main time or score column' })),
        order: Type.Optional(Type.String({ maxLength: 8, description: 'asc or desc (default desc)' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RAW_MAX_LIMIT })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
      }),
      response: {
        200: Envelope(Type.Object({
          table: Type.String(), rows: Type.Array(Type.Record(Type.String(), Type.Unknown())),
          total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer(),
        })),
      },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const name = request.query.table;
    if (!(RAW_TABLE_NAMES as string[]).includes(name)) throw invalidInput('table', `must be one of ${RAW_TABLE_NAMES.join(', ')}`);
    const table = RAW_TABLES[name as RawTableName];
    const sort = request.query.sort ?? table.defaultSort;
    if (!(sort in table.columns)) throw invalidInput('sort', `must be a column of ${name}: ${Object.keys(table.columns).join(', ')}`);
    const order = request.query.order ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw invalidInput('order', 'must be asc or desc');
    const limit = request.query.limit ?? RAW_DEFAULT_LIMIT;
    const offset = request.query.offset ?? 0;

    // The table and column names come from the allow-list above, never from the request text.
    const db = store.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    const columns = Object.keys(table.columns);
    const [rows, count] = await Promise.all([
      db.selectFrom(name).select(columns).where('site_id', '=', site.id)
        .orderBy(sort, order).orderBy('id', order).limit(limit).offset(offset).execute(),
      db.selectFrom(name).select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', site.id).executeTakeFirstOrThrow(),
    ]);
    return ok({ table: name, rows: rows.map((r) => serializeRow(table, r)), total: Number(count.n), offset, limit });
  });

  app.get('/query/export/events.csv', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Every raw event of the site as CSV (RFC 4180), streamed',
      querystring: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events at or after' })),
        to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events before' })),
      }),
      response: {
        200: {
          description: `CSV with a header row: ${EXPORT_HEADER.join(', ')}`,
          content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string', examples: [`${EXPORT_HEADER.join(',')}\r\n`] }) } },
        },
      },
    },
  }, async (request, reply) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const from = parseTime(request.query.from, 'from');
    const to = parseTime(request.query.to, 'to');
    if (from !== null && to !== null && to <= from) throw new AppError('invalid_input', 'to must be after from', { field: 'to', reason: 'must be after from' });
    reply.header('content-type', 'text/csv; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="events-${site.id}.csv"`);
    return reply.send(Readable.from(exportEvents(store, site.id, from, to)));
  });
}
