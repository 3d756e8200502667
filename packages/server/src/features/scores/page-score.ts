// A page's score row as the score routes return it (the /query/raw columns), and the check
// that a page exists at all.
import type { Kysely } from 'kysely';
import { AppError } from '../../domain/errors.ts';
import type { Database } from '../../store/tables.ts';
import { RAW_TABLES, serializeRow } from '../raw/tables.ts';

export const serializePageScore = (row: Record<string, unknown>) => serializeRow(RAW_TABLES.page_scores, row);
export const serializeHistory = (row: Record<string, unknown>) => serializeRow(RAW_TABLES.score_history, row);

/** The page's score row; null for a page seen but never scored; 404 for a page with no events. */
export async function seenPageScore(db: Kysely<Database>, siteId: string, page: string) {
  const score = await db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId).where('page', '=', page).executeTakeFirst();
  if (score) return score;
  const event = await db.selectFrom('events').select('id').where('site_id', '=', siteId).where('page', '=', page).limit(1).executeTakeFirst();
  if (!event) throw new AppError('not_found', 'No data for this page');
  return null;
}
