// Step 1 of a cycle: load what the scoring window needs, score every page and the site,
// save. The loads read the cycle's window (and, for quiet pages, up to 24 hours) plus
// aggregates of 7 days of score history, so a cycle's work grows with recent activity,
// never with the size of the history.
import { padInList } from '../store/in-list.ts';
import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, PageScoresTable } from '../store/tables.ts';
import { weightResolver } from '../domain/signals.ts';
import { loadSignalWeights } from '../domain/site-config.ts';
import {
  BASELINE_MS, baseline, deviationFrom, MAX_WINDOW_MS, MIN_ACTIVE_FOR_WINDOW, MIN_ACTIVE_TO_SCORE, overallScore, rawScore,
  scorePage, scoringWindow, spanScores, trendOf, weighSignals, type PageScore, type RawSums, type SignalFire, type SpanScore,
} from './scoring.ts';

interface PageFire extends SignalFire { page: string; element: string }

export interface ScoreStepResult { scored: number; stale: number; overallScore: number; activeUsers: number }

const user = sql<string>`coalesce(visitor_id, sid)`;

/** Per page, per user: the time of the user's latest event on the page in [from, to). */
async function lastSeenByPage(db: Kysely<Database>, siteId: string, from: number, to: number, skipPages: string[]) {
  let query = db.selectFrom('events').select(['page', user.as('u'), (eb) => eb.fn.max('occurred_at').as('last')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to);
  if (skipPages.length) query = query.where('page', 'not in', padInList(skipPages));
  return query.groupBy(['page', user]).execute();
}

async function firesBetween(db: Kysely<Database>, siteId: string, from: number, to: number, onlyPages?: string[]): Promise<PageFire[]> {
  if (onlyPages && onlyPages.length === 0) return [];
  let query = db.selectFrom('signals').select(['page', 'signal_type', 'element', 'confidence', 'occurred_at', user.as('u')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to);
  if (onlyPages) query = query.where('page', 'in', padInList(onlyPages));
  const rows = await query.execute();
  return rows.map((r) => ({ page: r.page, element: r.element, type: r.signal_type, user: r.u, confidence: r.confidence, at: r.occurred_at }));
}

/** Signals of ignored issues are left out from the cycle after the issue was ignored. */
async function ignoredFingerprints(db: Kysely<Database>, siteId: string, cycleAt: number) {
  const rows = await db.selectFrom('ux_issues').select(['page', 'type', 'element_selector'])
    .where('site_id', '=', siteId).where('status', '=', 'ignored').where('ignored_at', '<', cycleAt).execute();
  return new Set(rows.map((r) => `${r.page}\u0000${r.type}\u0000${r.element_selector}`));
}

async function historySums(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<Map<string, RawSums>> {
  const rows = await db.selectFrom('score_history')
    .select(['page', (eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.sum('raw_score').as('s'), sql<number>`sum(raw_score * raw_score)`.as('ss')])
    .where('site_id', '=', siteId).where('cycle_at', '>=', cycleAt - BASELINE_MS).where('cycle_at', '<', cycleAt)
    .groupBy('page').execute();
  return new Map(rows.map((r) => [r.page, { n: Number(r.n), sum: Number(r.s), sumSquares: Number(r.ss) }]));
}

export interface ActivityWindow {
  /** Per page: its users' latest event times within the last 24 hours. */
  lastSeen: Map<string, number[]>;
  /** Per user: latest event time on any page. */
  siteLastSeen: number[];
  fires: PageFire[];
}

/** Activity of [cycleAt - 24 h, cycleAt), read as narrowly as the windows allow. */
export async function loadActivity(db: Kysely<Database>, siteId: string, cycleAt: number, intervalMs: number): Promise<ActivityWindow> {
  const recent = await lastSeenByPage(db, siteId, cycleAt - intervalMs, cycleAt, []);
  const perPage = new Map<string, Map<string, number>>();
  const add = (page: string, u: string, last: number) => {
    let users = perPage.get(page);
    if (!users) perPage.set(page, (users = new Map()));
    users.set(u, Math.max(users.get(u) ?? 0, last));
  };
  for (const r of recent) add(r.page, r.u, Number(r.last));
  // Pages that already have 10 users in the last interval never look further back.
  const busy = [...perPage.entries()].filter(([, users]) => users.size >= MIN_ACTIVE_FOR_WINDOW).map(([page]) => page);
  const older = await lastSeenByPage(db, siteId, cycleAt - MAX_WINDOW_MS, cycleAt - intervalMs, busy);
  for (const r of older) add(r.page, r.u, Number(r.last));
  const quiet = [...perPage.keys()].filter((p) => !busy.includes(p));

  const fires = [
    ...(await firesBetween(db, siteId, cycleAt - intervalMs, cycleAt)),
    ...(await firesBetween(db, siteId, cycleAt - MAX_WINDOW_MS, cycleAt - intervalMs, quiet)),
  ];
  const siteUsers = new Map<string, number>();
  for (const users of perPage.values()) for (const [u, last] of users) siteUsers.set(u, Math.max(siteUsers.get(u) ?? 0, last));
  return {
    lastSeen: new Map([...perPage.entries()].map(([page, users]) => [page, [...users.values()]])),
    siteLastSeen: [...siteUsers.values()],
    fires,
  };
}

export async function scorePagesStep(db: Kysely<Database>, siteId: string, cycleAt: number, intervalMs: number): Promise<ScoreStepResult> {
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const ignored = await ignoredFingerprints(db, siteId, cycleAt);
  const activity = await loadActivity(db, siteId, cycleAt, intervalMs);
  const fires = activity.fires.filter((f) => !ignored.has(`${f.page}\u0000${f.type}\u0000${f.element}`));
  const firesByPage = new Map<string, PageFire[]>();
  for (const f of fires) (firesByPage.get(f.page) ?? firesByPage.set(f.page, []).get(f.page)!).push(f);

  const previous = new Map((await db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId).execute()).map((r) => [r.page, r]));
  const sums = await historySums(db, siteId, cycleAt);

  const scored: { page: string; start: number; result: PageScore }[] = [];
  const stale: string[] = [];
  for (const page of new Set([...activity.lastSeen.keys(), ...previous.keys()])) {
    const window = scoringWindow(activity.lastSeen.get(page) ?? [], cycleAt, intervalMs);
    if (window.activeUsers < MIN_ACTIVE_TO_SCORE) {
      // Too few users to score honestly: keep the previous score, marked stale, no history.
      if (previous.has(page)) stale.push(page);
      continue;
    }
    const firstSeen = previous.get(page)?.first_seen_at ?? cycleAt;
    const base = baseline(sums.get(page) ?? { n: 0, sum: 0, sumSquares: 0 }, cycleAt - firstSeen);
    const pageFires = (firesByPage.get(page) ?? []).filter((f) => f.at >= window.start);
    scored.push({ page, start: window.start, result: scorePage({ fires: pageFires, activeUsers: window.activeUsers, weight, baseline: base }) });
  }

  // The site: every counted signal over every active user in the site's own window.
  const siteWindow = scoringWindow(activity.siteLastSeen, cycleAt, intervalMs);
  const siteFires = fires.filter((f) => f.at >= siteWindow.start);
  const siteWeighed = weighSignals(siteFires, weight);
  const siteAffected = new Set(siteFires.filter((f) => weight(f.type) > 0).map((f) => f.user)).size;
  const siteRaw = rawScore(siteWeighed.total, siteWindow.activeUsers, siteAffected);
  const siteSums = await db.selectFrom('site_score_history')
    .select([(eb) => eb.fn.countAll().as('n'), (eb) => eb.fn.sum('raw_score').as('s'), sql<number>`sum(raw_score * raw_score)`.as('ss')])
    .where('site_id', '=', siteId).where('cycle_at', '>=', cycleAt - BASELINE_MS).where('cycle_at', '<', cycleAt).executeTakeFirst();
  const siteFirst = await db.selectFrom('site_score_history').select((eb) => eb.fn.min('cycle_at').as('first')).where('site_id', '=', siteId).executeTakeFirst();
  const siteBase = baseline({ n: Number(siteSums?.n ?? 0), sum: Number(siteSums?.s ?? 0), sumSquares: Number(siteSums?.ss ?? 0) }, siteFirst?.first != null ? cycleAt - Number(siteFirst.first) : 0);
  const siteDeviation = deviationFrom(siteRaw, siteBase);

  // Stale pages still count toward the overall score, weighted by their last active users.
  const overall = overallScore([
    ...scored.map((s) => ({ score: s.result.score, activeUsers: s.result.activeUsers })),
    ...stale.map((page) => ({ score: previous.get(page)!.score, activeUsers: previous.get(page)!.active_users })),
  ]);

  await db.transaction().execute(async (trx) => {
    // Running the same cycle again replaces its rows.
    await trx.deleteFrom('score_history').where('site_id', '=', siteId).where('cycle_at', '=', cycleAt).execute();
    await trx.deleteFrom('site_score_history').where('site_id', '=', siteId).where('cycle_at', '=', cycleAt).execute();
    for (const { page, start, result } of scored) {
      const breakdown = JSON.stringify(result.breakdown);
      await trx.insertInto('score_history').values({
        id: uuidv7(), site_id: siteId, page, cycle_at: cycleAt, score: result.score, raw_score: result.raw,
        deviation: result.deviation, trend: result.trend, active_users: result.activeUsers,
        affected_users: result.affectedUsers, breakdown,
      }).execute();
      const row: Omit<PageScoresTable, 'id' | 'first_seen_at'> = {
        site_id: siteId, page, score: result.score, raw_score: result.raw, trend: result.trend, deviation: result.deviation,
        duck_state: result.duckState, dominant_signal: result.dominantSignal, breakdown, active_users: result.activeUsers,
        affected_users: result.affectedUsers, frustrated_users: result.frustratedUsers, signal_count: result.signalCount,
        window_start: start, window_end: cycleAt, stale: 0, computed_at: cycleAt,
      };
      // page_scores holds the latest cycle: an older cycle run again (a backfill) leaves it alone.
      await trx.insertInto('page_scores').values({ id: uuidv7(), first_seen_at: cycleAt, ...row })
        .onConflict((oc) => oc.columns(['site_id', 'page']).doUpdateSet(row).where('page_scores.computed_at', '<=', cycleAt))
        .execute();
    }
    if (stale.length) {
      await trx.updateTable('page_scores').set({ stale: 1 })
        .where('site_id', '=', siteId).where('page', 'in', padInList(stale)).where('computed_at', '<=', cycleAt).execute();
    }
    await trx.insertInto('site_score_history').values({
      id: uuidv7(), site_id: siteId, cycle_at: cycleAt, overall_score: overall, raw_score: Math.round(siteRaw * 10_000) / 10_000,
      deviation: siteDeviation, trend: trendOf(siteDeviation), active_users: siteWindow.activeUsers, affected_users: siteAffected,
      window_start: siteWindow.start,
    }).execute();
  });
  return { scored: scored.length, stale: stale.length, overallScore: overall, activeUsers: siteWindow.activeUsers };
}

/**
 * Per (page, type, element) and segment of [earliest start, to), the exact sum of the clamped
 * confidences (confidenceUnits), computed in the database: the rows that come back are bounded
 * by pages x types x elements x starts, not by the number of signals. A signal's segment is the
 * one of the greatest start at or before it. The sum comes in three 26-bit limbs of
 * floor(c x 2^78): each limb is an integer of at most 2^26 computed exactly in doubles (scaling
 * by powers of two, floor, and the difference of two such integers are exact), so their SQL sums
 * are exact integers on both dialects up to 2^27 signals per group, and JS joins them as a BigInt.
 */
export async function confidenceBySegment(db: Kysely<Database>, siteId: string, starts: readonly number[], to: number) {
  const oldestFirst = [...new Set(starts)].sort((a, b) => a - b);
  // Padded to a power of two (the oldest start repeated first, which keeps the list sorted) so the
  // SQL text depends only on that length: both statement caches keep every text they see.
  const padded = padInList([...oldestFirst].reverse()).reverse();
  // The index of the greatest start at or before the signal, by binary search (log2 comparisons
  // per signal, not one per start); every signal is at or after padded[0], the oldest start.
  const search = (lo: number, hi: number): RawBuilder<number> => {
    if (hi - lo === 1) return sql<number>`${sql.lit(lo)}`;
    const mid = (lo + hi) / 2;
    return sql<number>`case when occurred_at >= ${padded[mid]} then ${search(mid, hi)} else ${search(lo, mid)} end`;
  };
  const segment = search(0, padded.length);
  // clampConfidence in SQL: in [0, 1] as is, below 0 is 0, anything else (above 1, NaN, null) is 1.
  const clamped = sql<number>`case when confidence >= 0 and confidence <= 1 then confidence when confidence < 0 then 0.0 else 1.0 end`;
  const rows = await db.selectFrom((qb) => qb.selectFrom('signals')
    .select(['page', 'signal_type', 'element', segment.as('seg'), clamped.as('c')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', padded[0]).where('occurred_at', '<', to)
    .as('s'))
    .select(['page', 'signal_type', 'element', 'seg',
      sql<number>`sum(floor(c * 67108864))`.as('u1'),
      sql<number>`sum(floor(c * 67108864 * 67108864) - floor(c * 67108864) * 67108864)`.as('u2'),
      sql<number>`sum(floor(c * 67108864 * 67108864 * 67108864) - floor(c * 67108864 * 67108864) * 67108864)`.as('u3')])
    .groupBy(['page', 'signal_type', 'element', 'seg'])
    .execute();
  return rows.map((r) => ({
    page: r.page, type: r.signal_type, element: r.element, start: padded[Number(r.seg)],
    units: (BigInt(Number(r.u1)) << 52n) + (BigInt(Number(r.u2)) << 26n) + BigInt(Number(r.u3)),
  }));
}

/** Per (page, type, element, user): the user's latest signal in [from, to). Bounded by users, not signals. */
async function lastFireByUser(db: Kysely<Database>, siteId: string, from: number, to: number) {
  const rows = await db.selectFrom('signals')
    .select(['page', 'signal_type', 'element', user.as('u'), (eb) => eb.fn.max('occurred_at').as('last')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to)
    .groupBy(['page', 'signal_type', 'element', user])
    .execute();
  return rows.map((r) => ({ page: r.page, type: r.signal_type, element: r.element, user: r.u, last: Number(r.last) }));
}

/**
 * Scores of the windows [start, to) without extension, for every start: what deploy after-scores
 * use. Aggregates of [earliest start, to) serve them all (spanScores sweeps them); the signals
 * themselves stay in the database. Signals of issues ignored before `to` are left out, as in page scores.
 */
export async function scoreSpans(db: Kysely<Database>, siteId: string, starts: readonly number[], to: number): Promise<Map<number, SpanScore>> {
  if (starts.length === 0) return new Map();
  const from = Math.min(...starts);
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const lastSeen = (await lastSeenByPage(db, siteId, from, to, [])).map((r) => ({ page: r.page, user: r.u, last: Number(r.last) }));
  const ignored = await ignoredFingerprints(db, siteId, to);
  const kept = (r: { page: string; type: string; element: string }) => !ignored.has(`${r.page}\u0000${r.type}\u0000${r.element}`);
  const confidence = (await confidenceBySegment(db, siteId, starts, to)).filter(kept);
  const lastFires = (await lastFireByUser(db, siteId, from, to)).filter(kept);
  return spanScores({ lastSeen, confidence, lastFires, weight, starts });
}
