// Revenue at risk (DOMAIN.md section 7). Per open issue, over the last 30 days on its page:
// the conversion rate of sessions that hit the issue (affected) against sessions with no
// friction at all (calm). Gap x affected sessions x average value = monthly revenue at risk.
import { sql, type Kysely } from 'kysely';
import type { Database, UxIssue } from '../store/tables.ts';
import { effectiveConfig } from '../domain/site-config.ts';
import { OPEN_ISSUE_STATUSES } from '../domain/statuses.ts';
import { DEFAULT_CONVERSION_EVENTS } from '../domain/site-settings.ts';
import { DAY_MS } from '../domain/time.ts';
import type { PriorityBasis } from '../domain/priority.ts';

export const REVENUE_WINDOW_MS = 30 * DAY_MS;
export const MIN_GROUP_SESSIONS = 30;

/** low: too few sessions on either side (or no average value) to estimate. */
export const ESTIMATE_CONFIDENCES = ['normal', 'low'] as const;
/** Where the average order value came from: conversion events' amount_cents, or the site's revenue config. */
export const AVERAGE_VALUE_SOURCES = ['observed', 'config'] as const;

export type IssueRevenue = {
  issue_id: string; title: string; page: string; element_selector: string; type: string; severity: string;
  affected_sessions: number; calm_sessions: number;
  affected_conversion_rate: number | null; calm_conversion_rate: number | null; gap: number | null;
  monthly_revenue_at_risk_cents: number | null; monthly_revenue_at_risk: number | null;
  confidence: (typeof ESTIMATE_CONFIDENCES)[number];
};

/** Pure: the estimate for one issue from its session counts. */
export function estimate(input: { affected: number; affectedConverted: number; calm: number; calmConverted: number; averageValueCents: number | null }) {
  if (input.affected < MIN_GROUP_SESSIONS || input.calm < MIN_GROUP_SESSIONS || input.averageValueCents === null) {
    return { affectedRate: input.affected ? input.affectedConverted / input.affected : null, calmRate: input.calm ? input.calmConverted / input.calm : null, gap: null, cents: null, confidence: 'low' as const };
  }
  const affectedRate = input.affectedConverted / input.affected;
  const calmRate = input.calmConverted / input.calm;
  const gap = Math.max(0, calmRate - affectedRate);
  return { affectedRate, calmRate, gap, cents: Math.round(gap * input.affected * input.averageValueCents), confidence: 'normal' as const };
}

const round4 = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10_000);

/** The site's revenue config (production's) with its defaults. */
async function revenueSettings(db: Kysely<Database>, siteId: string) {
  const { config } = await effectiveConfig(db, siteId, 'production');
  const revenue = config.revenue_config ?? {};
  return {
    revenue, currency: revenue.currency ?? 'USD',
    conversionEvents: revenue.conversion_events?.length ? revenue.conversion_events : [...DEFAULT_CONVERSION_EVENTS],
  };
}

const conversionsQuery = (db: Kysely<Database>, siteId: string, conversionEvents: string[], now: number) =>
  db.selectFrom('events').where('site_id', '=', siteId).where('type', '=', 'track').where('name', 'in', conversionEvents)
    .where('occurred_at', '>=', now - REVENUE_WINDOW_MS).where('occurred_at', '<', now);

/**
 * What an issue's priority may count (domain/priority.ts): whether the site tracks conversions
 * (one in the last 30 days, as revenueAtRisk decides) and its currency. One indexed lookup,
 * for writes that recompute a priority outside the cycle (PATCH).
 */
export async function revenueBasis(db: Kysely<Database>, siteId: string, now: number): Promise<PriorityBasis> {
  const { currency, conversionEvents } = await revenueSettings(db, siteId);
  const one = await conversionsQuery(db, siteId, conversionEvents, now).select('id').limit(1).executeTakeFirst();
  return { revenueTracked: one !== undefined, currency };
}

export async function revenueAtRisk(db: Kysely<Database>, siteId: string, now: number) {
  const { revenue, currency, conversionEvents } = await revenueSettings(db, siteId);
  const since = now - REVENUE_WINDOW_MS;

  const conversions = await conversionsQuery(db, siteId, conversionEvents, now).select(['props']).execute();
  const base = { currency, conversion_events: conversionEvents, window_days: 30 };
  if (conversions.length === 0) {
    return {
      ...base, tracking: false,
      message: `No conversion events (${conversionEvents.join(', ')}) in the last 30 days: track one with the SDK's track() to estimate revenue at risk.`,
      average_value_cents: null, average_value_source: null, total_monthly_revenue_at_risk_cents: 0, total_monthly_revenue_at_risk: 0, issues: [] as IssueRevenue[],
    };
  }
  const amounts = conversions.map((c) => (c.props ? (JSON.parse(c.props) as { amount_cents?: unknown }).amount_cents : undefined))
    .filter((a): a is number => typeof a === 'number' && Number.isFinite(a) && a >= 0);
  const averageValueCents = amounts.length ? Math.round(amounts.reduce((a, b) => a + b, 0) / amounts.length) : revenue.average_value_cents ?? null;
  const averageSource = amounts.length ? 'observed' : revenue.average_value_cents !== undefined ? 'config' : null;

  const issues = await db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).where('status', 'in', OPEN_ISSUE_STATUSES)
    .orderBy('severity_score', 'desc').execute();
  const results: IssueRevenue[] = [];
  for (const issue of issues) results.push(await issueRevenue(db, issue, since, now, averageValueCents));
  const total = results.reduce((sum, r) => sum + (r.monthly_revenue_at_risk_cents ?? 0), 0);
  results.sort((a, b) => (b.monthly_revenue_at_risk_cents ?? -1) - (a.monthly_revenue_at_risk_cents ?? -1));
  return {
    ...base, tracking: true, message: null, average_value_cents: averageValueCents, average_value_source: averageSource,
    total_monthly_revenue_at_risk_cents: total, total_monthly_revenue_at_risk: total / 100, issues: results,
  };
}

async function issueRevenue(db: Kysely<Database>, issue: UxIssue, since: number, now: number, averageValueCents: number | null): Promise<IssueRevenue> {
  // Sessions on the page; those with any friction signal there; those with this issue's signal.
  const pageSessions = db.selectFrom('events').select('sid').distinct()
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page).where('occurred_at', '>=', since).where('occurred_at', '<', now);
  const frictionSessions = db.selectFrom('signals').select('sid').distinct()
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page).where('occurred_at', '>=', since).where('occurred_at', '<', now);
  const affectedSessions = frictionSessions.where('signal_type', '=', issue.type).where('element', '=', issue.element_selector);
  type SidQuery = typeof pageSessions | typeof frictionSessions;
  const count = async (sids: SidQuery, exclude?: SidQuery) => {
    let q = db.selectFrom('sessions').select([(eb) => eb.fn.countAll().as('n'), sql<number>`sum(converted)`.as('converted')])
      .where('site_id', '=', issue.site_id).where('sid', 'in', sids);
    if (exclude) q = q.where('sid', 'not in', exclude);
    const row = await q.executeTakeFirstOrThrow();
    return { n: Number(row.n), converted: Number(row.converted ?? 0) };
  };
  const affected = await count(affectedSessions);
  const calm = await count(pageSessions, frictionSessions);
  const e = estimate({ affected: affected.n, affectedConverted: affected.converted, calm: calm.n, calmConverted: calm.converted, averageValueCents });
  return {
    issue_id: issue.id, title: issue.title, page: issue.page, element_selector: issue.element_selector, type: issue.type, severity: issue.severity,
    affected_sessions: affected.n, calm_sessions: calm.n,
    affected_conversion_rate: round4(e.affectedRate), calm_conversion_rate: round4(e.calmRate), gap: round4(e.gap),
    monthly_revenue_at_risk_cents: e.cents, monthly_revenue_at_risk: e.cents === null ? null : e.cents / 100, confidence: e.confidence,
  };
}
