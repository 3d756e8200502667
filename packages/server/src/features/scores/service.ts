// Reads behind the score routes: the site summary, page detail, trends, comparisons and
// per-element friction.
import { sql } from 'kysely';
import { iso } from '../../clock.ts';
import { AppError } from '../../domain/errors.ts';
import { budgetConsumption, matchesPattern, type BudgetPeriod } from '../../pipeline/budgets.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { DUCK_LABELS, duckState, overallScore, type DuckState } from '../../pipeline/scoring.ts';
import type { Store } from '../../store/db.ts';
import { RAW_TABLES, serializeRow } from '../raw/tables.ts';
import { SEVERITY_ORDER } from '../issues/service.ts';
import { toAnnotation } from '../annotations/routes.ts';
import { toDeployRecord } from '../deploys/service.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { ACTIVE_ALERT_STATUSES } from '../../domain/statuses.ts';
import { DAY_MS } from '../../domain/time.ts';


export const serializePageScore = (row: Record<string, unknown>) => serializeRow(RAW_TABLES.page_scores, row);
const serializeHistory = (row: Record<string, unknown>) => serializeRow(RAW_TABLES.score_history, row);

export async function siteSummary(store: Store, siteId: string) {
  const pages = await store.db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId)
    .orderBy('score', 'desc').orderBy('active_users', 'desc').orderBy('page', 'asc').execute();
  const latest = await store.db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId)
    .orderBy('cycle_at', 'desc').limit(1).executeTakeFirst();
  const overall = latest?.overall_score ?? overallScore(pages.map((p) => ({ score: p.score, activeUsers: p.active_users })));
  const state: DuckState = duckState(overall);
  return {
    site: {
      site_id: siteId,
      overall_score: overall,
      overall_trend: latest?.trend ?? 'stable',
      pages: pages.map(serializePageScore),
      total_active_users: latest?.active_users ?? 0,
      total_affected_users: latest?.affected_users ?? 0,
    },
    duck_state: state,
    duck_label: DUCK_LABELS[state],
    as_of: latest ? iso(latest.cycle_at) : null,
  };
}

async function pageSeen(store: Store, siteId: string, page: string) {
  const score = await store.db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId).where('page', '=', page).executeTakeFirst();
  if (score) return score;
  const event = await store.db.selectFrom('events').select('id').where('site_id', '=', siteId).where('page', '=', page).limit(1).executeTakeFirst();
  if (!event) throw new AppError('not_found', 'No data for this page');
  return null;
}

export async function topElements(store: Store, siteId: string, page: string, since: number, limit: number) {
  const rows = await store.db.selectFrom('signals')
    .select(['element', 'signal_type', (eb) => eb.fn.countAll().as('n'), sql<number>`count(distinct coalesce(visitor_id, sid))`.as('users'), (eb) => eb.fn.max('label').as('label')])
    .where('site_id', '=', siteId).where('page', '=', page).where('element', '!=', '').where('occurred_at', '>=', since)
    .groupBy(['element', 'signal_type']).execute();
  const users = await store.db.selectFrom('signals')
    .select(['element', sql<number>`count(distinct coalesce(visitor_id, sid))`.as('users')])
    .where('site_id', '=', siteId).where('page', '=', page).where('element', '!=', '').where('occurred_at', '>=', since)
    .groupBy('element').execute();
  const affected = new Map(users.map((u) => [u.element, Number(u.users)]));
  const byElement = new Map<string, { label: string | null; signals: Record<string, number>; total: number }>();
  for (const r of rows) {
    const e = byElement.get(r.element) ?? { label: null, signals: {}, total: 0 };
    e.signals[r.signal_type] = Number(r.n);
    e.total += Number(r.n);
    e.label ??= r.label;
    byElement.set(r.element, e);
  }
  return [...byElement.entries()]
    .map(([element, e]) => {
      const dominant = Object.entries(e.signals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
      return {
        element_selector: element, label: e.label, signal_count: e.total, signals: e.signals,
        dominant_signal: dominant, affected_users: affected.get(element) ?? 0, recommendation: recommendationFor(dominant),
      };
    })
    .sort((a, b) => b.signal_count - a.signal_count || b.affected_users - a.affected_users || a.element_selector.localeCompare(b.element_selector))
    .slice(0, limit);
}

export async function budgetsFor(store: Store, siteId: string, page: string, now: number) {
  const rules = await store.db.selectFrom('alert_rules').selectAll().where('site_id', '=', siteId).where('trigger_type', '=', 'budget').execute();
  const budgets = [];
  for (const rule of rules.filter((r) => matchesPattern(r.page_pattern, page))) {
    const period = ((JSON.parse(rule.config) as { period?: BudgetPeriod }).period ?? 'daily') as BudgetPeriod;
    const start = new Date(budgetConsumption([], 0, period, now).period_start).getTime();
    const before = await store.db.selectFrom('score_history').select(['cycle_at', 'score']).where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '<', start).orderBy('cycle_at', 'desc').limit(1).execute();
    const within = await store.db.selectFrom('score_history').select(['cycle_at', 'score']).where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '>=', start).where('cycle_at', '<=', now).orderBy('cycle_at', 'asc').execute();
    const history = [...before, ...within].map((r) => ({ at: r.cycle_at, score: r.score }));
    budgets.push({ rule_id: rule.id, name: rule.name, page_pattern: rule.page_pattern, target: rule.threshold, enabled: rule.enabled === 1, ...budgetConsumption(history, rule.threshold, period, now) });
  }
  return budgets;
}

export async function pageDetail(store: Store, siteId: string, page: string, now: number) {
  const score = await pageSeen(store, siteId, page);
  const [history, alerts, issues, deploys, annotations, elements, budgets] = await Promise.all([
    store.db.selectFrom('score_history').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '>=', now - 7 * DAY_MS).orderBy('cycle_at', 'desc').execute(),
    store.db.selectFrom('alerts').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('status', 'in', ACTIVE_ALERT_STATUSES).orderBy('fired_at', 'desc').execute(),
    store.db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('status', 'in', OPEN_ISSUE_STATUSES).orderBy(SEVERITY_ORDER).orderBy('last_seen_at', 'desc').execute(),
    store.db.selectFrom('deploys').selectAll().where('site_id', '=', siteId).orderBy('deployed_at', 'desc').limit(5).execute(),
    store.db.selectFrom('annotations').selectAll().where('site_id', '=', siteId)
      .where((eb) => eb.or([eb('page', 'is', null), eb('page', '=', page)]))
      .where('created_at', '>=', now - 30 * DAY_MS).orderBy('created_at', 'desc').execute(),
    topElements(store, siteId, page, now - 7 * DAY_MS, 20),
    budgetsFor(store, siteId, page, now),
  ]);
  return {
    page,
    score: score ? serializePageScore(score) : null,
    history: history.map(serializeHistory),
    elements,
    active_alerts: alerts.map((a) => serializeRow(RAW_TABLES.alerts, a)),
    issues: issues.map((i) => serializeRow(RAW_TABLES.ux_issues, i)),
    recent_deploys: deploys.map(toDeployRecord),
    annotations: annotations.map(toAnnotation),
    budgets,
  };
}

export async function trends(store: Store, siteId: string, page: string | null, days: number, now: number) {
  const since = now - days * DAY_MS;
  const history = page
    ? (await store.db.selectFrom('score_history').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '>=', since).orderBy('cycle_at', 'desc').execute()).map(serializeHistory)
    : (await store.db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId)
      .where('cycle_at', '>=', since).orderBy('cycle_at', 'desc').execute()).map((r) => ({
      cycle_at: iso(r.cycle_at), score: r.overall_score, raw_score: r.raw_score, deviation: r.deviation, trend: r.trend,
      active_users: r.active_users, affected_users: r.affected_users,
    }));
  let annotations = store.db.selectFrom('annotations').selectAll().where('site_id', '=', siteId).where('created_at', '>=', since);
  if (page) annotations = annotations.where((eb) => eb.or([eb('page', 'is', null), eb('page', '=', page)]));
  return { page, days, history, annotations: (await annotations.orderBy('created_at', 'desc').execute()).map(toAnnotation) };
}

export async function compare(store: Store, siteId: string, a: string, b: string) {
  const side = async (page: string) => {
    const row = await pageSeen(store, siteId, page);
    const open = await store.db.selectFrom('ux_issues').select((eb) => eb.fn.countAll().as('n'))
      .where('site_id', '=', siteId).where('page', '=', page).where('status', 'in', OPEN_ISSUE_STATUSES).executeTakeFirstOrThrow();
    return {
      page,
      score: row?.score ?? null,
      raw_score: row?.raw_score ?? null,
      trend: row?.trend ?? 'stable',
      deviation: row?.deviation ?? null,
      duck_state: row?.duck_state ?? null,
      dominant_signal: row?.dominant_signal ?? null,
      breakdown: row ? JSON.parse(row.breakdown) : [],
      active_users: row?.active_users ?? 0,
      affected_users: row?.affected_users ?? 0,
      open_issues: Number(open.n),
      stale: row ? row.stale === 1 : null,
    };
  };
  const [left, right] = await Promise.all([side(a), side(b)]);
  const diff = (x: number | null, y: number | null) => (x === null || y === null ? null : Math.round((x - y) * 10) / 10);
  return {
    a: left,
    b: right,
    difference: {
      score: diff(left.score, right.score),
      active_users: left.active_users - right.active_users,
      affected_users: left.affected_users - right.affected_users,
      open_issues: left.open_issues - right.open_issues,
    },
  };
}
