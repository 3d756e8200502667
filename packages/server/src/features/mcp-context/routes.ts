// GET /v1/query/mcp/context: one call that tells an assistant the state of a site. Every
// section is capped so the answer stays small whatever the site's size.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { ACTIVE_ALERT_STATUSES } from '../../domain/statuses.ts';
import { siteSummary } from '../scores/service.ts';
import { toDeployRecord } from '../deploys/service.ts';
import { SEVERITY_ORDER } from '../issues/service.ts';
import { toIssueRecord } from '../../domain/records/issue.ts';
import { toAlertRecord } from '../../domain/records/alert.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';

export const CONTEXT_CAPS = { pages: 10, issues: 10, deploys: 5, alerts: 10, recommendations: 5 } as const;
const Row = Type.Record(Type.String(), Type.Unknown());

export async function mcpContextRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/query/mcp/context', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One-call summary for an assistant: scores, open issues, deploys, alerts, recommendations, revenue',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: {
        200: Envelope(Type.Object({
          site_id: Type.String(), state: Type.String(), as_of: Type.Union([Type.String(), Type.Null()]), caps: Row,
          overall: Row, top_pages: Type.Array(Row), open_issues: Type.Array(Row), open_issue_count: Type.Integer(),
          recent_deploys: Type.Array(Row), active_alerts: Type.Array(Row), active_alert_count: Type.Integer(), recommendations: Type.Array(Row),
          revenue: Type.Union([Row, Type.Null()]),
        })),
      },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const now = clock.now();
    const [summary, issues, openCount, deploys, alerts, activeCount, revenue] = await Promise.all([
      siteSummary(store, site.id),
      store.db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES)
        .orderBy(SEVERITY_ORDER).orderBy('severity_score', 'desc').orderBy('last_seen_at', 'desc').limit(CONTEXT_CAPS.issues).execute(),
      store.db.selectFrom('ux_issues').select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES).executeTakeFirstOrThrow(),
      store.db.selectFrom('deploys').selectAll().where('site_id', '=', site.id).orderBy('deployed_at', 'desc').limit(CONTEXT_CAPS.deploys).execute(),
      store.db.selectFrom('alerts').selectAll().where('site_id', '=', site.id).where('status', 'in', ACTIVE_ALERT_STATUSES).orderBy('fired_at', 'desc').limit(CONTEXT_CAPS.alerts).execute(),
      store.db.selectFrom('alerts').select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', site.id).where('status', 'in', ACTIVE_ALERT_STATUSES).executeTakeFirstOrThrow(),
      revenueAtRisk(store.db, site.id, now),
    ]);
    const pages = (summary.site.pages as { page: string; score: number; trend: string; dominant_signal: string | null; active_users: number }[]).slice(0, CONTEXT_CAPS.pages);
    const worst = pages[0];
    const count = Number(openCount.n);
    const active = Number(activeCount.n);
    // One sentence, with the true totals (the lists below are capped).
    const state = [
      `${site.name}: ${summary.duck_label} (overall score ${summary.site.overall_score}, trend ${summary.site.overall_trend})`,
      worst ? `worst page ${worst.page} at ${worst.score}${worst.dominant_signal ? `, mostly ${worst.dominant_signal}` : ''}` : 'no page scored yet',
      `${count} open issue${count === 1 ? '' : 's'} and ${active} active alert${active === 1 ? '' : 's'}.`,
    ].join('; ');
    return ok({
      site_id: site.id,
      state,
      as_of: summary.as_of,
      caps: CONTEXT_CAPS,
      overall: { score: summary.site.overall_score, trend: summary.site.overall_trend, duck_state: summary.duck_state, active_users: summary.site.total_active_users, affected_users: summary.site.total_affected_users },
      top_pages: pages.map((p) => ({ page: p.page, score: p.score, trend: p.trend, dominant_signal: p.dominant_signal, active_users: p.active_users })),
      open_issues: issues.map((i) => { const r = toIssueRecord(i); return { id: r.id, title: r.title, page: r.page, type: r.type, severity: r.severity, status: r.status, session_count: r.session_count, last_seen_at: r.last_seen_at }; }),
      open_issue_count: count,
      recent_deploys: deploys.map((d) => { const r = toDeployRecord(d); return { id: r.id, version: r.version, environment: r.environment, deployed_at: r.deployed_at, confusion_before: r.confusion_before, confusion_after: r.confusion_after, delta: r.delta }; }),
      active_alerts: alerts.map((a) => { const r = toAlertRecord(a); return { id: r.id, trigger_type: r.trigger_type, page: r.page, severity: r.severity, status: r.status, message: r.message, fired_at: r.fired_at }; }),
      active_alert_count: active,
      recommendations: issues.slice(0, CONTEXT_CAPS.recommendations).map((i) => ({ issue_id: i.id, title: i.title, recommendation: recommendationFor(i.type) })),
      revenue: revenue.tracking ? { currency: revenue.currency, monthly_at_risk: revenue.total_monthly_revenue_at_risk } : null,
    });
  });
}
