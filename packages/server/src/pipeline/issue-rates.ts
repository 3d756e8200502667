// An issue's signal rate: its signals (same page, type and element) per active user on its
// page over a span. Verification compares the rate before resolution with the rate after.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';

export interface IssueKey { site_id: string; page: string; type: string; element_selector: string }
export interface SpanRate { count: number; activeUsers: number; rate: number }
export interface IssueSpan { issue: IssueKey; from: number; to: number }

async function signalCount(db: Kysely<Database>, { issue, from, to }: IssueSpan): Promise<number> {
  const row = await db.selectFrom('signals').select((eb) => eb.fn.countAll().as('n'))
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page)
    .where('signal_type', '=', issue.type).where('element', '=', issue.element_selector)
    .where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function pageUsers(db: Kysely<Database>, { issue, from, to }: IssueSpan): Promise<number> {
  const row = await db.selectFrom('events').select(sql<number>`count(distinct coalesce(visitor_id, sid))`.as('n'))
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page)
    .where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow();
  return Number(row.n);
}

const rateOf = (count: number, activeUsers: number): SpanRate => ({ count, activeUsers, rate: activeUsers > 0 ? count / activeUsers : 0 });

export async function issueRate(db: Kysely<Database>, issue: IssueKey, from: number, to: number): Promise<SpanRate> {
  const span = { issue, from, to };
  return rateOf(await signalCount(db, span), await pageUsers(db, span));
}

/**
 * The rates of several issues over their spans. A page's active users over a span are counted
 * once however many of the issues share them: that count reads every event of the page in the
 * span (7 days for a before-rate), the issue's own count only its signals.
 */
export async function issueRates(db: Kysely<Database>, spans: readonly IssueSpan[]): Promise<SpanRate[]> {
  const users = new Map<string, Promise<number>>();
  return Promise.all(spans.map(async (span) => {
    const key = JSON.stringify([span.issue.site_id, span.issue.page, span.from, span.to]);
    const counted = users.get(key) ?? users.set(key, pageUsers(db, span)).get(key)!;
    return rateOf(await signalCount(db, span), await counted);
  }));
}
