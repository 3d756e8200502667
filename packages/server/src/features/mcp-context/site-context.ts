// One call that tells an assistant the state of a site. Every section is capped so the
// answer stays small whatever the site's size; the sentence in `state` gives true totals.
import type { Kysely } from 'kysely';
import { toAlertRecord } from '../../domain/records/alert.ts';
import { orderByPriority } from '../../domain/priority.ts';
import { toIssueRecord } from '../../domain/records/issue.ts';
import { ACTIVE_ALERT_STATUSES, OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import type { SiteRef } from '../../domain/tenancy.ts';
import { recommendationFor } from '../../pipeline/recommendations.ts';
import { revenueAtRisk } from '../../pipeline/revenue.ts';
import type { Database } from '../../store/tables.ts';
import { recentDeploys } from '../deploys/recent-deploys.ts';
import { siteSummary } from '../scores/site-summary.ts';

export const CONTEXT_CAPS = { pages: 10, issues: 10, deploys: 5, alerts: 10, recommendations: 5 } as const;

export async function siteContext(db: Kysely<Database>, site: SiteRef, now: number) {
  const openIssues = db.selectFrom('ux_issues').where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES);
  const activeAlerts = db.selectFrom('alerts').where('alerts.site_id', '=', site.id).where('alerts.status', 'in', ACTIVE_ALERT_STATUSES);
  const [summary, issues, openCount, deploys, alerts, activeCount, revenue] = await Promise.all([
    siteSummary(db, site.id),
    orderByPriority(openIssues.selectAll()).limit(CONTEXT_CAPS.issues).execute(),
    openIssues.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    recentDeploys(db, site.id, CONTEXT_CAPS.deploys),
    activeAlerts.leftJoin('alert_rules', 'alert_rules.id', 'alerts.rule_id').selectAll('alerts').select('alert_rules.channels as rule_channels')
      .orderBy('alerts.fired_at', 'desc').limit(CONTEXT_CAPS.alerts).execute(),
    activeAlerts.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    revenueAtRisk(db, site.id, now),
  ]);
  const pages = (summary.site.pages as { page: string; score: number; trend: string; dominant_signal: string | null; active_users: number }[]).slice(0, CONTEXT_CAPS.pages);
  const worst = pages[0];
  const count = Number(openCount.n);
  const active = Number(activeCount.n);
  // It leads with the headline every face shows, then the true totals (the lists below are capped).
  const state = [
    `${site.name}: ${summary.headline}`,
    `trend ${summary.site.overall_trend}`,
    worst ? `worst page ${worst.page} at ${worst.score}${worst.dominant_signal ? `, mostly ${worst.dominant_signal}` : ''}` : 'no page scored yet',
    `${count} issue${count === 1 ? '' : 's'} needing attention and ${active} active alert${active === 1 ? '' : 's'}.`,
  ].join('; ');
  return {
    site_id: site.id,
    state,
    as_of: summary.as_of,
    caps: CONTEXT_CAPS,
    overall: {
      score: summary.site.overall_score, trend: summary.site.overall_trend, duck_state: summary.duck_state, duck_reason: summary.duck_reason,
      headline: summary.headline, active_users: summary.site.total_active_users, affected_users: summary.site.total_affected_users,
      window_from: summary.site.window_from, window_to: summary.site.window_to,
    },
    top_pages: pages.map((p) => ({ page: p.page, score: p.score, trend: p.trend, dominant_signal: p.dominant_signal, active_users: p.active_users })),
    open_issues: issues.map((i) => {
      const r = toIssueRecord(i);
      return { id: r.id, title: r.title, page: r.page, type: r.type, severity: r.severity, status: r.status, session_count: r.session_count, last_seen_at: r.last_seen_at, priority: r.priority, priority_reason: r.priority_reason };
    }),
    open_issue_count: count,
    recent_deploys: deploys.map((r) => ({ id: r.id, version: r.version, environment: r.environment, deployed_at: r.deployed_at, confusion_before: r.confusion_before, confusion_after: r.confusion_after, delta: r.delta })),
    // mcp_channel: the alert's rule names the mcp channel, so it is meant for the assistant.
    active_alerts: alerts.map((a) => {
      const r = toAlertRecord(a);
      const channels = a.rule_channels ? JSON.parse(a.rule_channels) as string[] : [];
      return { id: r.id, trigger_type: r.trigger_type, page: r.page, severity: r.severity, status: r.status, message: r.message, fired_at: r.fired_at, mcp_channel: channels.includes('mcp') };
    }),
    active_alert_count: active,
    recommendations: issues.slice(0, CONTEXT_CAPS.recommendations).map((i) => ({ issue_id: i.id, title: i.title, recommendation: recommendationFor(i.type) })),
    revenue: revenue.tracking
      ? { currency: revenue.currency, monthly_at_risk: revenue.total_monthly_revenue_at_risk, monthly_at_risk_cents: revenue.total_monthly_revenue_at_risk_cents }
      : null,
  };
}
