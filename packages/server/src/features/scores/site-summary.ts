// The site's score summary: overall score and trend from the latest cycle, every scored page,
// and the site's state with what set it (the overall score, an active alert or a page).
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { ACTIVE_ALERT_STATUSES, type AlertSeverity } from '../../domain/statuses.ts';
import { overallScore } from '../../pipeline/scoring.ts';
import { siteState } from '../../pipeline/site-state.ts';
import type { Database } from '../../store/tables.ts';
import { serializePageScore } from './page-score.ts';

export async function siteSummary(db: Kysely<Database>, siteId: string) {
  const [pages, latest, alerts] = await Promise.all([
    db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId)
      .orderBy('score', 'desc').orderBy('active_users', 'desc').orderBy('page', 'asc').execute(),
    db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId)
      .orderBy('cycle_at', 'desc').limit(1).executeTakeFirst(),
    db.selectFrom('alerts').select('severity').where('site_id', '=', siteId).where('status', 'in', ACTIVE_ALERT_STATUSES).execute(),
  ]);
  const overall = latest?.overall_score ?? overallScore(pages.map((p) => ({ score: p.score, activeUsers: p.active_users })));
  const state = siteState({ overallScore: overall, pages, activeAlerts: alerts.map((a) => a.severity as AlertSeverity) });
  return {
    site: {
      site_id: siteId,
      overall_score: overall,
      overall_trend: latest?.trend ?? 'stable',
      pages: pages.map(serializePageScore),
      total_active_users: latest?.active_users ?? 0,
      total_affected_users: latest?.affected_users ?? 0,
      // The totals' window: the latest cycle's site window (null before the first cycle).
      window_from: latest ? iso(latest.window_start) : null,
      window_to: latest ? iso(latest.cycle_at) : null,
    },
    ...state,
    as_of: latest ? iso(latest.cycle_at) : null,
  };
}
