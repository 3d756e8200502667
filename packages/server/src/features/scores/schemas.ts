// The score routes' query strings and answers; the services (and the MCP tools) take and
// return the same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { Nullable, SiteIdParam } from '../../domain/schema-parts.ts';

const SiteId = { site_id: Type.Optional(SiteIdParam) };
const pagePath = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const Page = pagePath('A page path, e.g. /checkout');

/** How far back trends and the elements window may reach. */
export const MAX_DAYS = 90;

export const SiteScoresQuery = Type.Object(SiteId);
export const PageQuery = Type.Object({ ...SiteId, page: Page });
export const TrendsQuery = Type.Object({
  ...SiteId,
  page: Type.Optional(pagePath('A page path, e.g. /checkout; omit it for the whole site')),
  days: Type.Integer({ minimum: 1, maximum: MAX_DAYS, default: 7, description: `Days of history, newest first (1 to ${MAX_DAYS}, default 7)` }),
});
export const CompareQuery = Type.Object({
  ...SiteId,
  a: pagePath('The first page path, e.g. /checkout'),
  b: pagePath('The second page path, e.g. /cart'),
});
export const ElementsQuery = Type.Object({
  ...SiteId,
  page: Page,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most elements returned (1 to 100, default 20)' }),
  // Without `from`, the window is the 7 days before `to` (or now).
  ...ReadFilterQuery,
});

export type SiteScoresQuery = Static<typeof SiteScoresQuery>;
export type PageQuery = Static<typeof PageQuery>;
export type TrendsQuery = Static<typeof TrendsQuery>;
export type CompareQuery = Static<typeof CompareQuery>;
export type ElementsQuery = Static<typeof ElementsQuery>;

const Row = Type.Record(Type.String(), Type.Unknown());
const Element = Type.Object({
  element_selector: Type.String(), label: Nullable(Type.String()), signal_count: Type.Integer(),
  signals: Type.Record(Type.String(), Type.Integer()), dominant_signal: Type.String(), affected_users: Type.Integer(),
  recommendation: Type.String(),
});

export const SiteScores = Type.Object({
  site: Type.Object({
    site_id: Type.String(), overall_score: Type.Number(), overall_trend: Type.String(), pages: Type.Array(Row),
    total_active_users: Type.Integer(), total_affected_users: Type.Integer(),
  }),
  duck_state: Type.String(), duck_label: Type.String(), as_of: Nullable(Type.String()),
});

export const PageDetail = Type.Object({
  page: Type.String(), score: Nullable(Row), history: Type.Array(Row), elements: Type.Array(Element),
  active_alerts: Type.Array(Row), issues: Type.Array(Row), recent_deploys: Type.Array(Row),
  annotations: Type.Array(Row), budgets: Type.Array(Row),
});

export const Trends = Type.Object({ page: Nullable(Type.String()), days: Type.Integer(), history: Type.Array(Row), annotations: Type.Array(Row) });
export const Comparison = Type.Object({ a: Row, b: Row, difference: Row });
export const Elements = Type.Object({ page: Type.String(), elements: Type.Array(Element) });
