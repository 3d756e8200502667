// One page in detail: its score, 7 days of history, top elements, active alerts, open
// issues, the site's recent deploys, 30 days of annotations and the page's budgets. Alerts,
// issues and deploys are the records every other face returns (domain/records).
import type { Kysely } from 'kysely';
import { ACTIVE_ALERT_STATUSES, OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { orderByPriority } from '../../domain/priority.ts';
import { alertsWithRuleName, toAlertRecord } from '../../domain/records/alert.ts';
import { toIssueRecord } from '../../domain/records/issue.ts';
import { DAY_MS } from '../../domain/time.ts';
import type { Database } from '../../store/tables.ts';
import { annotationsSince } from '../annotations/annotations-since.ts';
import { recentDeploys } from '../deploys/recent-deploys.ts';
import { pageBudgets } from './page-budgets.ts';
import { seenPageScore, serializeHistory, serializePageScore } from './page-score.ts';
import { topElements, withWindow } from './top-elements.ts';

export async function pageDetail(db: Kysely<Database>, siteId: string, page: string, now: number) {
  const score = await seenPageScore(db, siteId, page);
  const [history, alerts, issues, deploys, annotations, elements, budgets] = await Promise.all([
    db.selectFrom('score_history').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '>=', now - 7 * DAY_MS).orderBy('cycle_at', 'desc').execute(),
    alertsWithRuleName(db).where('alerts.site_id', '=', siteId).where('alerts.page', '=', page)
      .where('alerts.status', 'in', ACTIVE_ALERT_STATUSES).orderBy('alerts.fired_at', 'desc').execute(),
    orderByPriority(db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('status', 'in', OPEN_ISSUE_STATUSES)).execute(),
    recentDeploys(db, siteId, 5),
    annotationsSince(db, siteId, now - 30 * DAY_MS, page),
    topElements(db, siteId, page, { since: now - 7 * DAY_MS, until: null, device: null }, 20),
    pageBudgets(db, siteId, page, now),
  ]);
  return {
    page,
    score: score ? serializePageScore(score) : null,
    history: history.map(serializeHistory),
    elements: withWindow(elements, now - 7 * DAY_MS, now),
    active_alerts: alerts.map(toAlertRecord),
    issues: issues.map(toIssueRecord),
    recent_deploys: deploys,
    annotations,
    budgets,
  };
}
