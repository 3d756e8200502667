// What to fix first, defined once (docs/issues.md, "Priority"): an issue's priority 0-100 and
// the words that explain it, and the order every face lists issues in. The pipeline's
// prioritise step stores both on the issue each cycle; PATCH recomputes them from the stored
// inputs; the query API, recommendations, the MCP context, tools and prompts read them.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/tables.ts';
import { weightResolver } from './signals.ts';
import { formatMoney } from './money.ts';
import { OPEN_ISSUE_STATUSES, type Severity } from './statuses.ts';

/** Points of each part when the site has revenue data; without it the first three are scaled to fill 100. */
export const PRIORITY_POINTS = { users: 35, severity: 30, weight: 15, revenue: 20 } as const;
/** Users affected in 7 days that count fully (log scale: 1 user is 3.5 of 35 points, 10 users 12.1, 100 users 23.4). */
export const USERS_IN_FULL = 1000;
/** A signal weight that counts fully: the registry's heaviest types weigh 38 to 40. */
export const WEIGHT_IN_FULL = 40;
/** Monthly revenue at risk that counts fully, in cents (10,000 a month, log scale). */
export const REVENUE_IN_FULL_CENTS = 1_000_000;
/** The severity part's share by the effective severity (a manual severity wins). */
export const SEVERITY_SHARE: Readonly<Record<Severity, number>> = { low: 0.25, medium: 0.5, high: 0.75, critical: 1 };
/** Without revenue data the other parts (80 points) are scaled by this, so the scale stays 0-100. */
export const NO_REVENUE_SCALE = 100 / (100 - PRIORITY_POINTS.revenue);

/** What the site's revenue data allows: prices issues only when the site tracks conversions. */
export interface PriorityBasis {
  /** The site tracked a conversion event in the last 30 days (pipeline/revenue.ts). */
  revenueTracked: boolean;
  /** ISO 4217 code the reason formats money in. */
  currency: string;
}

export interface PriorityInput {
  /** The effective severity: the manual one when set, else the computed one. */
  severity: string;
  type: string;
  /** Distinct users (visitor, else session) with this issue's signal on its element in the last 7 days. */
  users7d: number;
  /** The site's resolved weight for the type; null falls back to the registry's. */
  signalWeight: number | null;
  /** Monthly revenue at risk in cents; null when not estimated. */
  revenueAtRiskCents: number | null;
}

export interface Priority { priority: number; priority_reason: string }

const round1 = (v: number) => Math.round(v * 10) / 10;
const share = (value: number, full: number) => (value <= 0 ? 0 : Math.min(1, Math.log10(1 + value) / Math.log10(1 + full)));

/** The four parts before scaling, each within its points. */
export function priorityParts(input: PriorityInput, basis: Pick<PriorityBasis, 'revenueTracked'>) {
  const weight = input.signalWeight ?? weightResolver()(input.type);
  const severityShare = SEVERITY_SHARE[input.severity as Severity] ?? SEVERITY_SHARE.low;
  return {
    users: PRIORITY_POINTS.users * share(input.users7d, USERS_IN_FULL),
    severity: PRIORITY_POINTS.severity * severityShare,
    weight: PRIORITY_POINTS.weight * Math.min(1, Math.max(0, weight) / WEIGHT_IN_FULL),
    revenue: basis.revenueTracked && input.revenueAtRiskCents !== null
      ? PRIORITY_POINTS.revenue * share(input.revenueAtRiskCents / 100, REVENUE_IN_FULL_CENTS / 100)
      : 0,
    resolvedWeight: weight,
  };
}

/**
 * Pure: priority 0-100 (one decimal) = users + severity + weight + revenue, where
 * users    = 35 x log10(1 + users in 7 days) / log10(1001), at most 35;
 * severity = 30 x 1 (critical), 0.75 (high), 0.5 (medium) or 0.25 (low);
 * weight   = 15 x signal weight / 40, at most 15;
 * revenue  = 20 x log10(1 + monthly revenue at risk in currency units) / log10(10001), at most 20,
 *            0 when not estimated; a site without revenue data has no revenue part and the
 *            other three are multiplied by 100 / 80.
 * The status does not enter the number: the order puts issues needing attention first, and
 * regressed before the others at equal priority.
 */
export function priorityOf(input: PriorityInput, basis: PriorityBasis): Priority {
  const parts = priorityParts(input, basis);
  const sum = parts.users + parts.severity + parts.weight + parts.revenue;
  const priority = round1(Math.min(100, basis.revenueTracked ? sum : sum * NO_REVENUE_SCALE));
  return { priority, priority_reason: reasonOf(input, basis, parts.resolvedWeight) };
}

/** An issue row's priority from what it stores. */
export function issuePriority(
  row: { severity: string; type: string; users_7d: number; signal_weight: number | null; revenue_at_risk_cents: number | null },
  basis: PriorityBasis,
): Priority {
  return priorityOf({
    severity: row.severity, type: row.type, users7d: row.users_7d, signalWeight: row.signal_weight, revenueAtRiskCents: row.revenue_at_risk_cents,
  }, basis);
}

/** e.g. "critical; 272 users in 7 days; $7,167/month at risk; rage click (weight 25)". */
function reasonOf(input: PriorityInput, basis: PriorityBasis, weight: number): string {
  const users = input.users7d === 1 ? '1 user in 7 days' : `${input.users7d.toLocaleString('en-US')} users in 7 days`;
  const revenue = !basis.revenueTracked ? null
    : input.revenueAtRiskCents === null ? 'revenue at risk not estimated (too few sessions)'
      : `${formatMoney(input.revenueAtRiskCents, basis.currency)}/month at risk`;
  const type = `${input.type.replace(/_/g, ' ')} (weight ${round1(weight)})`;
  return [input.severity, users, revenue, type].filter((p) => p !== null).join('; ');
}

// The order, once for SQL and once for JavaScript: issues needing attention (open, triaged,
// in_progress, regressed) first, then priority (highest first), then regressed before the other
// statuses at equal priority (it came back after a fix), then the most recently seen, then id.

const NEEDS_ATTENTION_FIRST = sql<number>`case when status in (${sql.join(OPEN_ISSUE_STATUSES.map((s) => sql.lit(s)))}) then 0 else 1 end`;
const REGRESSED_FIRST = sql<number>`case when status = 'regressed' then 0 else 1 end`;

/** Orders a query of ux_issues (no join) by priority, the order every face uses. */
export function orderByPriority<O>(query: SelectQueryBuilder<Database, 'ux_issues', O>): SelectQueryBuilder<Database, 'ux_issues', O> {
  return query.orderBy(NEEDS_ATTENTION_FIRST).orderBy('priority', 'desc').orderBy(REGRESSED_FIRST)
    .orderBy('last_seen_at', 'desc').orderBy('id');
}

const ATTENTION = new Set<string>(OPEN_ISSUE_STATUSES);
export const needsAttention = (status: string) => ATTENTION.has(status);

/** The same order in JavaScript; `last_seen_at` in epoch milliseconds or ISO 8601. */
export function comparePriority(
  a: { id: string; status: string; priority: number; last_seen_at: number | string },
  b: { id: string; status: string; priority: number; last_seen_at: number | string },
): number {
  const seen = (v: number | string) => (typeof v === 'number' ? v : Date.parse(v));
  return Number(!needsAttention(a.status)) - Number(!needsAttention(b.status))
    || b.priority - a.priority
    || Number(a.status !== 'regressed') - Number(b.status !== 'regressed')
    || seen(b.last_seen_at) - seen(a.last_seen_at)
    || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
