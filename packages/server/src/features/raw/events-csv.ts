// GET /v1/query/export/events.csv: every event of the site as RFC 4180 CSV, read in
// keyset-paged chunks so memory stays flat however many rows there are. Formula-like cells are
// neutralised (csv.ts) unless `raw=1` asks for the verbatim file.
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { parseInstant } from '../../domain/read-window.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { csvRow } from './csv.ts';
import type { ExportQuery } from './schemas.ts';

const EXPORT_CHUNK = 2000;

const EXPORT_COLUMNS = ['id', 'sid', 'visitor_id', 'type', 'page', 'occurred_at', 'name', 'signal_type', 'element', 'label', 'referrer_page', 'environment', 'props'] as const;
export const EXPORT_HEADER = ['id', 'session_id', 'visitor_id', 'type', 'page', 'occurred_at', 'name', 'signal_type', 'element_selector', 'label', 'referrer_page', 'environment', 'props'];

/** One chunk of the export: the events after `after` (by time, then id), oldest first. */
export function exportChunkQuery(db: Kysely<Database>, siteId: string, from: number | null, to: number | null, after: { at: number; id: string } | null) {
  let query = db.selectFrom('events').select(EXPORT_COLUMNS).where('site_id', '=', siteId);
  if (from !== null) query = query.where('occurred_at', '>=', from);
  if (to !== null) query = query.where('occurred_at', '<', to);
  if (after) {
    const { at, id } = after;
    // The bare `>=` lets the (site_id, occurred_at) index seek to the chunk's start; with
    // only the OR below SQLite walked the site's events from the first one for every chunk.
    query = query.where('occurred_at', '>=', at).where((eb) => eb.or([eb('occurred_at', '>', at), eb('id', '>', id)]));
  }
  return query.orderBy('occurred_at', 'asc').orderBy('id', 'asc').limit(EXPORT_CHUNK);
}

type ExportRow = Awaited<ReturnType<ReturnType<typeof exportChunkQuery>['execute']>>[number];

async function* exportEvents(db: Kysely<Database>, siteId: string, from: number | null, to: number | null, neutralise: boolean) {
  yield csvRow(EXPORT_HEADER);
  let after: { at: number; id: string } | null = null;
  for (;;) {
    const rows: ExportRow[] = await exportChunkQuery(db, siteId, from, to, after).execute();
    if (rows.length === 0) return;
    let chunk = '';
    for (const r of rows) {
      chunk += csvRow([r.id, r.sid, r.visitor_id, r.type, r.page, new Date(r.occurred_at).toISOString(), r.name, r.signal_type, r.element, r.label, r.referrer_page, r.environment, r.props], neutralise);
    }
    yield chunk;
    const last: { occurred_at: number; id: string } = rows[rows.length - 1];
    after = { at: last.occurred_at, id: last.id };
    if (rows.length < EXPORT_CHUNK) return;
  }
}

/** The file name and its text in chunks; the site and the range are checked before any row is read. */
export async function eventsCsv({ ctx, input }: { ctx: ServiceContext; input: Static<typeof ExportQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const from = parseInstant(input.from, 'from');
  const to = parseInstant(input.to, 'to');
  if (from !== null && to !== null && to <= from) throw new AppError('invalid_input', 'to must be after from', { field: 'to', reason: 'must be after from' });
  return { filename: `events-${site.id}.csv`, chunks: exportEvents(ctx.db, site.id, from, to, input.raw !== '1') };
}
