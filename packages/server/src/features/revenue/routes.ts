// GET /v1/query/revenue and GET /v1/query/recommendations.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';

const Row = Type.Record(Type.String(), Type.Unknown());
const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });

/**
 * Priority 0-100: 60 % severity score, 25 % reach (users affected in 24 hours, 100+ counts
 * fully), 15 % revenue (its share of the site's revenue at risk).
 */
export function priorityOf(severityScore: number, users: number, revenueShare: number): number {
  return Math.round((0.6 * severityScore + 25 * Math.min(1, users / 100) + 15 * Math.min(1, revenueShare)) * 10) / 10;
}

export async function revenueRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/revenue', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Monthly revenue at risk across open issues (needs conversion tracking)', querystring: SiteQuery,
      response: {
        200: Envelope(Type.Object({
          currency: Type.String(), conversion_events: Type.Array(Type.String()), window_days: Type.Integer(), tracking: Type.Boolean(),
          message: Type.Union([Type.String(), Type.Null()]), average_value_cents: Type.Union([Type.Integer(), Type.Null()]),
          average_value_source: Type.Union([Type.String(), Type.Null()]), total_monthly_revenue_at_risk_cents: Type.Integer(),
          total_monthly_revenue_at_risk: Type.Number(), issues: Type.Array(Row),
        })),
      },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    return ok(await revenueAtRisk(store.db, site.id, clock.now()));
  });

  app.get('/query/recommendations', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'What to fix first: open issues by priority, each with a concrete recommendation',
      querystring: Type.Object({ ...SiteQuery.properties, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: { 200: Envelope(Type.Object({ currency: Type.String(), recommendations: Type.Array(Row) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const revenue = await revenueAtRisk(store.db, site.id, clock.now());
    const byIssue = new Map(revenue.issues.map((r) => [r.issue_id, r]));
    const issues = await store.db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id)
      .where('status', 'in', OPEN_ISSUE_STATUSES).execute();
    const total = revenue.total_monthly_revenue_at_risk_cents;
    const recommendations = issues.map((issue) => {
      const money = byIssue.get(issue.id)?.monthly_revenue_at_risk_cents ?? null;
      return {
        issue_id: issue.id, title: issue.title, page: issue.page, element_selector: issue.element_selector, type: issue.type,
        severity: issue.severity, status: issue.status, affected_users: issue.user_count,
        monthly_revenue_at_risk_cents: money,
        priority: priorityOf(issue.severity_score, issue.user_count, total > 0 && money ? money / total : 0),
        recommendation: recommendationFor(issue.type),
        issue_url: `/v1/query/issues/${issue.id}`,
      };
    }).sort((a, b) => b.priority - a.priority || a.title.localeCompare(b.title)).slice(0, request.query.limit);
    return ok({ currency: revenue.currency, recommendations });
  });
}
