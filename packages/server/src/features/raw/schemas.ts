import { Type } from '@sinclair/typebox';
import { RAW_TABLE_NAMES } from './tables.ts';
import { OneOf, SiteIdParam } from '../../domain/schema-parts.ts';

export const RAW_DEFAULT_LIMIT = 100;
export const RAW_MAX_LIMIT = 1000;

export const RawQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  table: Type.String({ maxLength: 64, description: `The table: ${RAW_TABLE_NAMES.join(', ')}` }),
  sort: Type.Optional(Type.String({ maxLength: 64, description: 'A column of the table; default its main time or score column' })),
  order: Type.Optional(Type.String({ maxLength: 8, description: 'asc or desc (default desc)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RAW_MAX_LIMIT, description: `Most rows returned (1 to ${RAW_MAX_LIMIT}, default ${RAW_DEFAULT_LIMIT})` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'How many rows to skip (default 0)' })),
});

export const ExportQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events at or after' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events before' })),
  raw: Type.Optional(OneOf(['0', '1'], '1: every cell verbatim. By default (0) a cell starting with =, +, -, @, a tab or a carriage return gets a leading single quote (\'), so a spreadsheet shows it as text instead of running it')),
});

export const RawRows = Type.Object({
  table: Type.String(), rows: Type.Array(Type.Record(Type.String(), Type.Unknown(), { description: 'One row: the table\'s exposed columns, by name' })),
  total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer(),
});
