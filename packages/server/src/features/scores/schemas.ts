// The score routes' query strings; the service takes the same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';

const SiteId = { site_id: Type.Optional(Type.String({ maxLength: 64 })) };
const Page = Type.String({ minLength: 1, maxLength: 2048, description: 'A page path, e.g. /checkout' });

/** How far back trends and the elements window may reach. */
export const MAX_DAYS = 90;

export const SiteScoresQuery = Type.Object(SiteId);
export const PageQuery = Type.Object({ ...SiteId, page: Page });
export const TrendsQuery = Type.Object({ ...SiteId, page: Type.Optional(Page), days: Type.Integer({ minimum: 1, maximum: MAX_DAYS, default: 7 }) });
export const CompareQuery = Type.Object({ ...SiteId, a: Page, b: Page });
export const ElementsQuery = Type.Object({
  ...SiteId,
  page: Page,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  // Without `from`, the window is the 7 days before `to` (or now).
  ...ReadFilterQuery,
});

export type SiteScoresQuery = Static<typeof SiteScoresQuery>;
export type PageQuery = Static<typeof PageQuery>;
export type TrendsQuery = Static<typeof TrendsQuery>;
export type CompareQuery = Static<typeof CompareQuery>;
export type ElementsQuery = Static<typeof ElementsQuery>;
