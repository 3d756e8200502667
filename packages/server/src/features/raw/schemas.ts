import { Type } from '@sinclair/typebox';
import { RAW_TABLE_NAMES } from './tables.ts';

export const RAW_DEFAULT_LIMIT = 100;
export const RAW_MAX_LIMIT = 1000;

export const RawQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  table: Type.String({ maxLength: 64, description: RAW_TABLE_NAMES.join(', ') }),
  sort: Type.Optional(Type.String({ maxLength: 64, description: 'A column of the table; default its main time or score column' })),
  order: Type.Optional(Type.String({ maxLength: 8, description: 'asc or desc (default desc)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RAW_MAX_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
});

export const ExportQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events at or after' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; events before' })),
});
