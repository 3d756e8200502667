import { Type } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { SELECTOR_MAX } from '../../domain/normalize.ts';

const PageQuery = {
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  page: Type.String({ minLength: 1, maxLength: 2048 }),
  ...ReadFilterQuery,
};

export const PageHeatmapQuery = Type.Object(PageQuery);
export const ElementHeatmapQuery = Type.Object({ ...PageQuery, selector: Type.String({ minLength: 1, maxLength: SELECTOR_MAX }) });
