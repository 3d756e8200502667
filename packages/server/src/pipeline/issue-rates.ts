// An issue's signal rate: its signals (same page, type and element) per active user on its
// page over a span. Verification compares the rate before resolution with the rate after.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';

export interface IssueKey { site_id: string; page: string; type: string; element_selector: string }
export interface SpanRate { count: number; activeUsers: number; rate: number }

export async function issueRate(db: Kysely<Database>, issue: IssueKey, from: number, to: number): Promise<SpanRate> {
  const signals = await db.selectFrom('signals').select((eb) => eb.fn.countAll().as('n'))
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page)
    .where('signal_type', '=', issue.type).where('element', '=', issue.element_selector)
    .where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow();
  const users = await db.selectFrom('events').select(sql<number>`count(distinct coalesce(visitor_id, sid))`.as('n'))
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page)
    .where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow();
  const count = Number(signals.n);
  const activeUsers = Number(users.n);
  return { count, activeUsers, rate: activeUsers > 0 ? count / activeUsers : 0 };
}
