// GET /v1/query/raw: one page of rows of one allow-listed table of the site.
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { rowCount } from '../../store/row-counts.ts';
import { RAW_DEFAULT_LIMIT, type RawQuery } from './schemas.ts';
import { RAW_TABLE_NAMES, RAW_TABLES, serializeRow, type RawTableName } from './tables.ts';

export async function rawRows({ ctx, input }: { ctx: ServiceContext; input: Static<typeof RawQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const name = input.table;
  if (!(RAW_TABLE_NAMES as string[]).includes(name)) throw invalidInput('table', `must be one of ${RAW_TABLE_NAMES.join(', ')}`);
  const table = RAW_TABLES[name as RawTableName];
  const sort = input.sort ?? table.defaultSort;
  if (!(sort in table.columns)) throw invalidInput('sort', `must be a column of ${name}: ${Object.keys(table.columns).join(', ')}`);
  const order = input.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalidInput('order', 'must be asc or desc');
  const limit = input.limit ?? RAW_DEFAULT_LIMIT;
  const offset = input.offset ?? 0;

  // The table and column names come from the allow-list above, never from the request text.
  const db = ctx.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const columns = Object.keys(table.columns);
  // The total from the counts triggers keep (store/row-counts.ts): count(*) grows with history.
  const [rows, total] = await Promise.all([
    db.selectFrom(name).select(columns).where('site_id', '=', site.id)
      .orderBy(sort, order).orderBy('id', order).limit(limit).offset(offset).execute(),
    rowCount(ctx.db, site.id, name as RawTableName),
  ]);
  return { table: name, rows: rows.map((r) => serializeRow(table, r)), total, offset, limit };
}
