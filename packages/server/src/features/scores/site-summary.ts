// The site's score summary: overall score and trend from the latest cycle, every scored page.
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { DUCK_LABELS, duckState, overallScore, type DuckState } from '../../pipeline/scoring.ts';
import type { Database } from '../../store/tables.ts';
import { serializePageScore } from './page-score.ts';

export async function siteSummary(db: Kysely<Database>, siteId: string) {
  const pages = await db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId)
    .orderBy('score', 'desc').orderBy('active_users', 'desc').orderBy('page', 'asc').execute();
  const latest = await db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId)
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
