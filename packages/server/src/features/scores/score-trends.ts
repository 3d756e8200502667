// Score history since a number of days ago, newest first: one page's, or the site's overall
// series when no page is given; with the annotations of the same span.
import type { Kysely } from 'kysely';
import { iso } from '../../clock.ts';
import { DAY_MS } from '../../domain/time.ts';
import type { Database } from '../../store/tables.ts';
import { annotationsSince } from '../annotations/annotations-since.ts';
import { serializeHistory } from './page-score.ts';

export async function scoreTrends(db: Kysely<Database>, siteId: string, page: string | null, days: number, now: number) {
  const since = now - days * DAY_MS;
  const history = page
    ? (await db.selectFrom('score_history').selectAll().where('site_id', '=', siteId).where('page', '=', page)
      .where('cycle_at', '>=', since).orderBy('cycle_at', 'desc').execute()).map(serializeHistory)
    : (await db.selectFrom('site_score_history').selectAll().where('site_id', '=', siteId)
      .where('cycle_at', '>=', since).orderBy('cycle_at', 'desc').execute()).map((r) => ({
      cycle_at: iso(r.cycle_at), score: r.overall_score, raw_score: r.raw_score, deviation: r.deviation, trend: r.trend,
      active_users: r.active_users, affected_users: r.affected_users,
    }));
  return { page, days, history, annotations: await annotationsSince(db, siteId, since, page) };
}
