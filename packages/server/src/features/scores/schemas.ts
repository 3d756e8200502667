// The score routes' query strings and answers; the services (and the MCP tools) take and
// return the same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { ReadFilterQuery } from '../../domain/read-window.ts';
import { AlertRecord } from '../../domain/records/alert.ts';
import { AnnotationRecord } from '../../domain/records/annotation.ts';
import { DeployRecord } from '../../domain/records/deploy.ts';
import { IssueRecord } from '../../domain/records/issue.ts';
import {
  Breakdown, DuckStateEnum, IsoTime, Nullable, NullableIsoTime, OneOf, SiteIdParam, TrendEnum, Uuid,
} from '../../domain/schema-parts.ts';
import { BUDGET_PERIODS, BUDGET_STATUSES } from '../../pipeline/budgets.ts';
import { DUCK_REASONS } from '../../pipeline/site-state.ts';
import { RAW_TABLES, rowSchema } from '../raw/tables.ts';

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

const Int = Type.Integer();
const Num = Type.Number();
const Text = Type.String();


// The rows below are the /query/raw columns of their tables (serializeRow writes them).
const PageScoreRow = rowSchema(RAW_TABLES.page_scores, {
  id: Uuid, page: Text, score: Num, raw_score: Num, trend: TrendEnum, deviation: Nullable(Num), duck_state: DuckStateEnum,
  dominant_signal: Nullable(Text), breakdown: Breakdown, active_users: Int, affected_users: Int, frustrated_users: Int,
  signal_count: Int, window_start: IsoTime, window_end: IsoTime, stale: Type.Boolean(), computed_at: IsoTime, first_seen_at: IsoTime,
});
const ScoreHistoryRow = rowSchema(RAW_TABLES.score_history, {
  id: Uuid, page: Text, cycle_at: IsoTime, score: Num, raw_score: Num, deviation: Nullable(Num), trend: TrendEnum,
  active_users: Int, affected_users: Int, breakdown: Breakdown,
});
const SiteHistoryRow = Type.Object({
  cycle_at: IsoTime, score: Num, raw_score: Num, deviation: Nullable(Num), trend: TrendEnum, active_users: Int, affected_users: Int,
});
const Budget = Type.Object({
  rule_id: Uuid, name: Text, page_pattern: Text, target: Num, enabled: Type.Boolean(), period: OneOf(BUDGET_PERIODS),
  period_start: IsoTime, period_end: IsoTime, minutes_above: Int, consumed_percent: Int, days_over: Int, status: OneOf(BUDGET_STATUSES),
});
const Element = Type.Object({
  element_selector: Type.String(), label: Nullable(Type.String()), signal_count: Type.Integer(),
  // Keyed by signal type: which types appear is data, so the map stays open.
  signals: Type.Record(Type.String(), Type.Integer(), { description: 'Signal count per signal type' }),
  dominant_signal: Type.String({ description: 'The signal type with the most signals' }), affected_users: Type.Integer(),
  recommendation: Type.String(),
  window_from: Type.String({ format: 'date-time', description: 'The counts cover signals from this instant...' }),
  window_to: Type.String({ format: 'date-time', description: '...to this one' }),
});

export const SiteScores = Type.Object({
  site: Type.Object({
    site_id: Type.String(), overall_score: Type.Number(), overall_trend: TrendEnum, pages: Type.Array(PageScoreRow),
    total_active_users: Type.Integer({ description: 'Distinct visitors of the site in the latest cycle\'s window (window_from to window_to)' }),
    total_affected_users: Type.Integer({ description: 'Of those, the visitors with at least one counted signal' }),
    window_from: NullableIsoTime, window_to: NullableIsoTime,
  }),
  duck_state: DuckStateEnum,
  duck_label: Type.String({ description: 'The state in words ("no data yet" for a site with no scored page)' }),
  duck_reason: OneOf(DUCK_REASONS, 'What set duck_state: the overall score, an active alert (critical: at least alert; any other: at least watching) or a page at flustered or worse (at least watching)'),
  headline: Type.String({ description: 'One plain sentence of the site\'s state and its reason, the one every face shows' }),
  as_of: Nullable(Type.String()),
});

export const PageDetail = Type.Object({
  page: Type.String(), score: Nullable(PageScoreRow), history: Type.Array(ScoreHistoryRow), elements: Type.Array(Element),
  active_alerts: Type.Array(AlertRecord), issues: Type.Array(IssueRecord), recent_deploys: Type.Array(DeployRecord),
  annotations: Type.Array(AnnotationRecord), budgets: Type.Array(Budget),
});

export const Trends = Type.Object({
  page: Nullable(Type.String()), days: Type.Integer(),
  history: Type.Array(Type.Union([ScoreHistoryRow, SiteHistoryRow]), { description: "The page's score history rows, or with no page the site's overall series" }),
  annotations: Type.Array(AnnotationRecord),
});

/** One side of a comparison; a page seen but never scored has null scores. */
const ComparedPage = Type.Object({
  page: Text, score: Nullable(Num), raw_score: Nullable(Num), trend: TrendEnum, deviation: Nullable(Num), duck_state: Nullable(DuckStateEnum),
  dominant_signal: Nullable(Text), breakdown: Breakdown, active_users: Int, affected_users: Int, open_issues: Int, stale: Nullable(Type.Boolean()),
});
export const Comparison = Type.Object({
  a: ComparedPage, b: ComparedPage,
  difference: Type.Object({ score: Nullable(Num), active_users: Int, affected_users: Int, open_issues: Int }, { description: 'a - b; score null when either is unscored' }),
});
export const Elements = Type.Object({ page: Type.String(), elements: Type.Array(Element) });
