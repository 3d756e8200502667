// Two pages side by side, and their differences (a - b).
import type { Kysely } from 'kysely';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import type { Database } from '../../store/tables.ts';
import { seenPageScore } from './page-score.ts';

async function side(db: Kysely<Database>, siteId: string, page: string) {
  const row = await seenPageScore(db, siteId, page);
  const open = await db.selectFrom('ux_issues').select((eb) => eb.fn.countAll().as('n'))
    .where('site_id', '=', siteId).where('page', '=', page).where('status', 'in', OPEN_ISSUE_STATUSES).executeTakeFirstOrThrow();
  return {
    page,
    score: row?.score ?? null,
    raw_score: row?.raw_score ?? null,
    trend: row?.trend ?? 'stable',
    deviation: row?.deviation ?? null,
    duck_state: row?.duck_state ?? null,
    dominant_signal: row?.dominant_signal ?? null,
    breakdown: row ? JSON.parse(row.breakdown) : [],
    active_users: row?.active_users ?? 0,
    affected_users: row?.affected_users ?? 0,
    open_issues: Number(open.n),
    stale: row ? row.stale === 1 : null,
  };
}

export async function pageComparison(db: Kysely<Database>, siteId: string, a: string, b: string) {
  const [left, right] = await Promise.all([side(db, siteId, a), side(db, siteId, b)]);
  const diff = (x: number | null, y: number | null) => (x === null || y === null ? null : Math.round((x - y) * 10) / 10);
  return {
    a: left,
    b: right,
    difference: {
      score: diff(left.score, right.score),
      active_users: left.active_users - right.active_users,
      affected_users: left.affected_users - right.affected_users,
      open_issues: left.open_issues - right.open_issues,
    },
  };
}
