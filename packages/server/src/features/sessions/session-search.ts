// GET /v1/query/sessions: a site's sessions in a window, filtered and sorted, a page at a time,
// each with a one-line summary from the narrative.
//
// Cost is bounded by the window and the page, never by the site's history (migration 0018):
// the window (default the last 7 days, at most 90) is a range of sessions_site_started or of
// sessions_site_friction, whose friction_weight ingest keeps on the row, so the default order
// (friction) walks an index from the top and stops after offset + limit rows. Filters on what
// the row holds (device, browser, converted, min_friction) are column tests; filters on what
// happened in the session are EXISTS probes of one session's rows through an index: pages by the
// pageview index (events_site_sid_pageviews), signal types and issues by signals_site_sid. The
// summaries read the signals of the returned sessions only (at most `limit` sessions), and the
// count stops at SESSIONS_TOTAL_CAP.
import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import { AppError } from '../../domain/errors.ts';
import { checkPagePattern, hasWildcard, likePattern } from '../../domain/page-pattern.ts';
import { readWindow } from '../../domain/read-window.ts';
import { sessionSpan } from '../../domain/records/session.ts';
import { FALLBACK_WEIGHT, KNOWN_SIGNAL_TYPES, weightResolver, type WeightOverrides } from '../../domain/signals.ts';
import { loadSignalWeights } from '../../domain/site-config.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS } from '../../domain/time.ts';
import { padInList } from '../../store/in-list.ts';
import type { Database } from '../../store/tables.ts';
import { summarizeSession, type NarrativeEvent } from './narrative.ts';
import { SESSIONS_DEFAULT_DAYS, SESSIONS_TOTAL_CAP, type SessionsSearchQuery } from './schemas.ts';

type SessionQuery = SelectQueryBuilder<Database, 'sessions', object>;

/** What the search matches a page against: a stored page exactly, or a pattern with `*`. */
type PageMatch = { exact: string } | { pattern: string };

/** The issue a search is narrowed to: its signals are of its type, on its element and page. */
interface IssueKey { type: string; element_selector: string; page: string }

const round1 = (v: number) => Math.round(v * 10) / 10;

/** The shortest window whose friction order walks the friction index rather than sorting the window's range. */
const FRICTION_WALK_MIN_SPAN_MS = 2 * DAY_MS;

async function pageMatchOf(ctx: ServiceContext, siteId: string, value: string): Promise<PageMatch> {
  // Without a wildcard the page is normalized as ingest stored it (ids grouped, the site's page groups: read once per call, ctx.memo).
  if (!hasWildcard(value)) return { exact: await pageParam(ctx, siteId, value) };
  return { pattern: checkPagePattern(value, 'page') };
}

const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * A column a probe of one session must not be looked up by: on SQLite a unary `+`, without
 * which its planner (no statistics) took the page index (site_id, page, ...) for the probe and
 * read every pageview of the page for each session (150 s at 100k signals, BENCHMARKS.md)
 * instead of the session's own rows.
 */
const probeRef = (db: Kysely<Database>, ref: 'events.page' | 'signals.page') => (isPostgres(db) ? sql.ref(ref) : sql`+${sql.ref(ref)}`);

/**
 * A pattern as SQL on the pageview's page, matched case and all on both dialects: LIKE on
 * PostgreSQL; GLOB on SQLite, whose LIKE ignores ASCII case (literal parts bracketed: `[*]`).
 */
function pageCondition(db: Kysely<Database>, match: PageMatch) {
  const page = probeRef(db, 'events.page');
  if ('exact' in match) return sql<boolean>`${page} = ${match.exact}`;
  if (isPostgres(db)) return sql<boolean>`${page} like ${likePattern(match.pattern)} escape '\\'`;
  const glob = match.pattern.split('*').map((part) => part.replace(/[[*?]/g, (c) => `[${c}]`)).join('*');
  return sql<boolean>`${page} glob ${glob}`;
}

function filtered(db: Kysely<Database>, query: SessionQuery, input: SessionsSearchQuery, page: PageMatch | null, issue: IssueKey | null): SessionQuery {
  let q = query;
  if (input.device) q = q.where('device_type', '=', input.device);
  if (input.browser) q = q.where(sql`lower(browser)`, '=', input.browser.toLowerCase());
  if (input.converted !== undefined) q = q.where('converted', '=', input.converted ? 1 : 0);
  // A probe of the session's clips through clips_site_sid (snapshots are not clips).
  if (input.has_clips !== undefined) {
    const clipsOfSession = (eb: ExpressionBuilder<Database, 'sessions'>) => eb.selectFrom('clips').select(sql`1`.as('one'))
      .whereRef('clips.site_id', '=', 'sessions.site_id').whereRef('clips.sid', '=', 'sessions.sid').where('clips.kind', '=', 'clip').limit(1).offset(0);
    q = q.where((eb) => (input.has_clips ? eb.exists(clipsOfSession(eb)) : eb.not(eb.exists(clipsOfSession(eb)))));
  }
  if (input.min_friction !== undefined) q = q.where('friction_weight', '>=', input.min_friction);
  // OFFSET keeps PostgreSQL from turning the probe into a semi-join, which hashed every event
  // or signal of the site (a sequential scan growing with its history) instead of looking up
  // each session of the window's own rows by (site_id, sid); SQLite probes per row anyway.
  const signalsOfSession = (eb: ExpressionBuilder<Database, 'sessions'>) => eb.selectFrom('signals').select(sql`1`.as('one'))
    .whereRef('signals.site_id', '=', 'sessions.site_id').whereRef('signals.sid', '=', 'sessions.sid').limit(1).offset(0);
  if (input.signal_type) {
    const type = input.signal_type;
    q = q.where((eb) => eb.exists(signalsOfSession(eb).where('signals.signal_type', '=', type)));
  }
  if (issue) {
    q = q.where((eb) => eb.exists(signalsOfSession(eb).where('signals.signal_type', '=', issue.type)
      .where('signals.element', '=', issue.element_selector).where(sql<boolean>`${probeRef(db, 'signals.page')} = ${issue.page}`)));
  }
  if (page) {
    // A literal `type = 'pageview'`, so both planners can use the partial pageview index.
    q = q.where((eb) => eb.exists(eb.selectFrom('events').select(sql`1`.as('one'))
      .whereRef('events.site_id', '=', 'sessions.site_id').whereRef('events.sid', '=', 'sessions.sid')
      .where(sql<boolean>`events.type = 'pageview'`).where(pageCondition(db, page)).limit(1).offset(0)));
  }
  return q;
}

function sorted<O>(query: SelectQueryBuilder<Database, 'sessions', O>, sort: SessionsSearchQuery['sort']) {
  switch (sort) {
    case 'start': return query.orderBy('first_seen_at', 'desc').orderBy('sid');
    case 'duration': return query.orderBy(sql`last_seen_at - first_seen_at`, 'desc').orderBy('first_seen_at', 'desc').orderBy('sid');
    default: return query.orderBy('friction_weight', 'desc').orderBy('first_seen_at', 'desc').orderBy('sid');
  }
}

/**
 * A signal's weight x confidence in SQL, from the registry merged with the site's overrides (as
 * weightResolver gives it in JavaScript): one CASE over the known and overridden types.
 */
function weightedConfidence(overrides: WeightOverrides) {
  const weight = weightResolver(overrides);
  const types = [...new Set([...KNOWN_SIGNAL_TYPES, ...Object.keys(overrides)])];
  const cases = sql.join(types.map((type) => sql`when ${type} then ${sql.lit(weight(type))}`), sql` `);
  return sql<number>`(case signal_type ${cases} else ${sql.lit(FALLBACK_WEIGHT)} end) * confidence`;
}

/**
 * Each session's heaviest signal (weight x cf; the earliest of equals), with its event's props
 * for the narrative's words. Ranked in SQL, so the answer carries one signal per session: the
 * busiest sessions of a large site hold hundreds of signals each, and reading them all out to
 * keep one grew the search with the site's traffic.
 */
async function worstSignals(db: Kysely<Database>, siteId: string, sids: string[]): Promise<Map<string, NarrativeEvent>> {
  if (sids.length === 0) return new Map();
  const overrides = await loadSignalWeights(db, siteId);
  const ranked = db.selectFrom('signals')
    .select(['sid', 'signal_type', 'page', 'element', 'label', 'occurred_at', 'event_id'])
    .select(sql<number>`row_number() over (partition by sid order by ${weightedConfidence(overrides)} desc, occurred_at, id)`.as('rank'))
    .where('site_id', '=', siteId).where('sid', 'in', padInList(sids))
    .as('ranked');
  const rows = await db.selectFrom(ranked).innerJoin('events', 'events.id', 'ranked.event_id')
    .select(['ranked.sid', 'ranked.signal_type', 'ranked.page', 'ranked.element', 'ranked.label', 'ranked.occurred_at', 'events.props'])
    .where('ranked.rank', '=', 1).execute();
  return new Map(rows.map((row) => [row.sid, {
    type: 'signal', page: row.page, occurred_at: Number(row.occurred_at), name: null, signal_type: row.signal_type,
    element: row.element || null, label: row.label, props: row.props ? (JSON.parse(row.props) as Record<string, unknown>) : null,
  }]));
}

/** Each returned session's friction clips, counted through clips_site_sid (at most `limit` sessions). */
async function clipCounts(db: Kysely<Database>, siteId: string, sids: string[]): Promise<Map<string, number>> {
  if (sids.length === 0) return new Map();
  const rows = await db.selectFrom('clips').select((eb) => ['sid', eb.fn.countAll<number | string>().as('n')])
    .where('site_id', '=', siteId).where('sid', 'in', padInList(sids)).where('kind', '=', 'clip').groupBy('sid').execute();
  return new Map(rows.map((r) => [r.sid, Number(r.n)]));
}

export async function searchSessions({ ctx, input }: { ctx: ServiceContext; input: SessionsSearchQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const window = readWindow(input, ctx.now, SESSIONS_DEFAULT_DAYS * DAY_MS);
  const from = window.from!;
  const to = window.to;
  const page = input.page === undefined ? null : await pageMatchOf(ctx, site.id, input.page);
  let issue: IssueKey | null = null;
  if (input.issue_id !== undefined) {
    const found = await ctx.db.selectFrom('ux_issues').select(['type', 'element_selector', 'page'])
      .where('site_id', '=', site.id).where('id', '=', input.issue_id.toLowerCase()).executeTakeFirst();
    if (!found) throw new AppError('not_found', 'Issue not found');
    issue = found;
  }
  const { offset = 0, limit = 50 } = input;
  // Keyed by what was asked, as the other reads are: the default window moves with the clock, so
  // its bounds in the key would make every request a miss; an answer is served for at most the
  // read cache's age, its window_from / window_to saying which window it is.
  return cachedRead(ctx, ['sessions-search', site.id, page, issue, input], async () => {
    const inWindow = (walkFriction: boolean) => {
      // Walking sessions_site_friction from the top: the window's bounds are tested on the
      // index's own start column instead of being its range (SQLite: unary +, see probeRef).
      const start = walkFriction && !isPostgres(ctx.db) ? sql<number>`+first_seen_at` : sql.ref('first_seen_at');
      let q = ctx.db.selectFrom('sessions').where('site_id', '=', site.id).where(start, '>=', from);
      if (to !== null) q = q.where(start, '<', to);
      return filtered(ctx.db, q, input, page, issue);
    };
    // The friction order of a window of days reads the top of the friction index until it has
    // offset + limit sessions of the window (a window is a fair share of 90 days, so few are
    // skipped); a narrower window is read as a range of sessions_site_started and sorted. The
    // count is always the range.
    const walk = (input.sort ?? 'friction') === 'friction' && (to ?? ctx.now) - from >= FRICTION_WALK_MIN_SPAN_MS;
    // The count stops one past the cap (a busy site's week holds hundreds of thousands of
    // sessions at 10M signals: counting them all would be the one part of the answer that grows
    // with the traffic). Past the cap the answer says `total_capped`, and pages go on past it.
    const counted = ctx.db.selectFrom(inWindow(false).select(sql`1`.as('one')).limit(SESSIONS_TOTAL_CAP + 1).as('window_sessions'))
      .select((eb) => eb.fn.countAll().as('n'));
    const [rows, count] = await Promise.all([
      sorted(inWindow(walk).select(['sid', 'first_seen_at', 'last_seen_at', 'pages', 'page_count', 'entry_page', 'exit_page', 'signal_count', 'signal_counts',
        'friction_weight', 'converted', 'device_type', 'browser']), input.sort).limit(limit).offset(offset).execute(),
      counted.executeTakeFirstOrThrow(),
    ]);
    const matched = Number(count.n);
    const [worst, clips] = await Promise.all([
      worstSignals(ctx.db, site.id, rows.filter((r) => r.signal_count > 0).map((r) => r.sid)),
      clipCounts(ctx.db, site.id, rows.map((r) => r.sid)),
    ]);
    const sessions = rows.map((r) => {
      const pages = JSON.parse(r.pages) as string[];
      const span = sessionSpan(r);
      const converted = r.converted === 1;
      return {
        session_id: r.sid,
        ...span,
        pages,
        page_count: r.page_count,
        signals: JSON.parse(r.signal_counts) as Record<string, number>,
        signal_count: r.signal_count,
        friction_weight: round1(r.friction_weight),
        converted,
        device: r.device_type,
        browser: r.browser,
        clips: clips.get(r.sid) ?? 0,
        summary: summarizeSession({ pages, page_count: r.page_count, entry_page: r.entry_page, exit_page: r.exit_page, duration_ms: span.duration_ms, signal_count: r.signal_count, converted }, worst.get(r.sid) ?? null),
      };
    });
    return { sessions, total: Math.min(matched, SESSIONS_TOTAL_CAP), total_capped: matched > SESSIONS_TOTAL_CAP, offset, limit, window_from: iso(from), window_to: iso(to ?? ctx.now) };
  });
}
