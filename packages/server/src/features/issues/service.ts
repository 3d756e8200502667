// UX issues: the list, one issue in full, and the lifecycle a person drives with PATCH.
// Each service takes ({ ctx, input }), resolves the site within the caller's tenancy first,
// and throws domain errors; routes, MCP tools and the CLI call these the same way.
import { padInList } from '../../store/in-list.ts';
import { hourOf } from '../../store/element-rollup.ts';
import { v7 as uuidv7 } from 'uuid';
import { sql } from 'kysely';
import { iso, isoOrNull } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { enqueue, eventJob } from '../../events/jobs.ts';
import { actorOf, type ServiceContext } from '../../domain/context.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import { resolveSite, rowInTenant } from '../../domain/tenancy.ts';
import { AppError } from '../../domain/errors.ts';
import type { IssueActivityKind } from '../../domain/statuses.ts';
import { severityOf } from '../../pipeline/issues.ts';
import { SEVERITY_ORDER, toIssueRecord, type IssueRecord } from '../../domain/records/issue.ts';
import type { UxIssue } from '../../store/tables.ts';
import type { ListIssuesQuery, UpdateIssueBody } from './schemas.ts';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../store/tables.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { issuePriority, orderByPriority } from '../../domain/priority.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { revenueBasis } from '../../pipeline/revenue.ts';
import { DAY_MS, HOUR_MS } from '../../domain/time.ts';
import { parseInstant } from '../../domain/read-window.ts';
import { invalidInput } from '../../domain/errors.ts';
import { DAILY_COUNT_DAYS } from './schemas.ts';

const DEPLOY_WINDOW_MS = 48 * HOUR_MS;

type IssueQuery = SelectQueryBuilder<Database, 'ux_issues', object>;

/** `q` as a LIKE pattern: its own %, _ and \ matched literally (escaped with \). */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const Q_COLUMNS = ['title', 'element_label', 'element_selector', 'page'] as const;

/** The first_seen and last_seen ranges in epoch ms (from inclusive, to exclusive), or 400 naming the field. */
function seenRanges(input: ListIssuesQuery) {
  const range = (column: 'first_seen_at' | 'last_seen_at', prefix: 'first_seen' | 'last_seen') => {
    const from = parseInstant(input[`${prefix}_from`], `${prefix}_from`);
    const to = parseInstant(input[`${prefix}_to`], `${prefix}_to`);
    if (from !== null && to !== null && from >= to) throw invalidInput(`${prefix}_to`, `must be after ${prefix}_from`);
    return { column, from, to };
  };
  return [range('first_seen_at', 'first_seen'), range('last_seen_at', 'last_seen')];
}
type SeenRanges = ReturnType<typeof seenRanges>;

/** The list's filters; every one narrows (they combine with AND). */
function filtered(query: IssueQuery, input: ListIssuesQuery, page: string | null, seen: SeenRanges): IssueQuery {
  let q = query;
  for (const { column, from, to } of seen) {
    if (from !== null) q = q.where(column, '>=', from);
    if (to !== null) q = q.where(column, '<', to);
  }
  if (input.status) q = q.where('status', '=', input.status);
  if (input.attention !== undefined) q = q.where('status', input.attention ? 'in' : 'not in', OPEN_ISSUE_STATUSES);
  if (input.severity) q = q.where('severity', '=', input.severity);
  if (page !== null) q = q.where('page', '=', page);
  if (input.type) q = q.where('type', '=', input.type);
  if (input.assigned_to) q = q.where('assigned_to', '=', input.assigned_to.trim());
  if (input.q) {
    const pattern = containsPattern(input.q);
    q = q.where((eb) => eb.or(Q_COLUMNS.map((c) => eb(sql`lower(${sql.ref(c)})`, 'like', sql<string>`${pattern} escape '\\'`))));
  }
  return q;
}

/** The order of `sort`: priority is the one every face uses; the others fall back to it on ties. */
function sorted<O>(query: SelectQueryBuilder<Database, 'ux_issues', O>, sort: ListIssuesQuery['sort']) {
  switch (sort) {
    case 'severity': return orderByPriority(query.orderBy(SEVERITY_ORDER));
    case 'users': return orderByPriority(query.orderBy('users_7d', 'desc'));
    // coalesce: SQLite and PostgreSQL put nulls at opposite ends.
    case 'revenue': return orderByPriority(query.orderBy(sql`coalesce(revenue_at_risk_cents, -1)`, 'desc'));
    case 'last_seen': return query.orderBy('last_seen_at', 'desc').orderBy('priority', 'desc').orderBy('id');
    default: return orderByPriority(query);
  }
}

/** One page of the list as stored rows, with the total: what both list services answer from. */
async function issuePage(ctx: ServiceContext, siteId: string, input: ListIssuesQuery) {
  const page = input.page === undefined ? null : await pageParam(ctx, siteId, input.page);
  const seen = seenRanges(input);
  const { offset = 0, limit = 50 } = input;
  return {
    page, offset, limit,
    load: async () => {
      const query = filtered(ctx.db.selectFrom('ux_issues').where('site_id', '=', siteId), input, page, seen);
      const [rows, count] = await Promise.all([
        sorted(query.selectAll(), input.sort).limit(limit).offset(offset).execute(),
        query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}

/** The list as GET /v1/query/issues answers it: each record with its daily_counts and their window. */
export async function listIssues({ ctx, input }: { ctx: ServiceContext; input: ListIssuesQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const { page, offset, limit, load } = await issuePage(ctx, site.id, input);
  const windowFrom = Math.floor(ctx.now / DAY_MS) * DAY_MS - (DAILY_COUNT_DAYS - 1) * DAY_MS;
  return cachedRead(ctx, ['issues', site.id, page, windowFrom, input], async () => {
    const { rows, total } = await load();
    const daily = await dailyCounts(ctx.db, site.id, rows, windowFrom, ctx.now);
    const window = { window_from: iso(windowFrom), window_to: iso(ctx.now) };
    return {
      issues: rows.map((r) => ({ ...toIssueRecord(r), daily_counts: daily.get(issueKey(r.page, r.type, r.element_selector)) ?? Array(DAILY_COUNT_DAYS).fill(0), ...window })),
      total, offset, limit,
    };
  });
}

/**
 * The same list as bare issue records, without daily_counts: for faces that show no sparkline
 * (the weekly summary prompt reads 200 issues), which need not read two weeks of their pages' signals.
 */
export async function listIssueRecords({ ctx, input }: { ctx: ServiceContext; input: ListIssuesQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const { page, offset, limit, load } = await issuePage(ctx, site.id, input);
  return cachedRead(ctx, ['issue-records', site.id, page, input], async () => {
    const { rows, total } = await load();
    return { issues: rows.map(toIssueRecord), total, offset, limit };
  });
}

const issueKey = (page: string, type: string, element: string) => `${page}\u0000${type}\u0000${element}`;

/**
 * Each listed issue's signals (its type on its element and page) per UTC day from windowFrom
 * (a midnight) to `to`. Whole hours come from the element rollup (store/element-rollup.ts: one
 * row per page, hour, element, type and user, kept by ingest), which holds exactly the signals
 * on elements; the raw signals are read only for the current partial hour and, when a listed
 * issue has no element, for its page-level signals. So the cost grows with the listed pages'
 * element-hours over two weeks, not with every signal they received.
 */
async function dailyCounts(db: Kysely<Database>, siteId: string, issues: readonly UxIssue[], windowFrom: number, to: number) {
  const out = new Map<string, number[]>();
  if (issues.length === 0) return out;
  const pages = padInList([...new Set(issues.map((i) => i.page))]);
  const wanted = new Set(issues.map((i) => issueKey(i.page, i.type, i.element_selector)));
  const edge = Math.max(windowFrom, hourOf(to));
  const rawDay = sql<number>`occurred_at / ${sql.lit(DAY_MS)}`;
  const rawCounts = (from: number, until: number) => db.selectFrom('signals')
    .select(['page', 'signal_type', 'element', rawDay.as('day'), (eb) => eb.fn.countAll().as('n')])
    .where('site_id', '=', siteId).where('page', 'in', pages).where('occurred_at', '>=', from).where('occurred_at', '<', until);
  const [hours, partialHour, pageLevel] = await Promise.all([
    db.selectFrom('element_rollup')
      .select(['page', 'signal_type', 'element', sql<number>`hour / ${sql.lit(DAY_MS)}`.as('day'), (eb) => eb.fn.sum<number>('signals').as('n')])
      .where('site_id', '=', siteId).where('page', 'in', pages).where('hour', '>=', windowFrom).where('hour', '<', edge)
      .groupBy(['page', 'signal_type', 'element', sql`hour / ${sql.lit(DAY_MS)}`]).execute(),
    rawCounts(edge, to).groupBy(['page', 'signal_type', 'element', rawDay]).execute(),
    // The rollup holds no page-level signals (element ''): those of the whole hours come from the raw table.
    issues.some((i) => i.element_selector === '')
      ? rawCounts(windowFrom, edge).where('element', '=', '').groupBy(['page', 'signal_type', 'element', rawDay]).execute()
      : Promise.resolve([]),
  ]);
  const first = windowFrom / DAY_MS;
  for (const r of [...hours, ...partialHour, ...pageLevel]) {
    const key = issueKey(r.page, r.signal_type, r.element);
    if (!wanted.has(key)) continue;
    const index = Number(r.day) - first;
    if (index < 0 || index >= DAILY_COUNT_DAYS) continue;
    const counts = out.get(key) ?? Array<number>(DAILY_COUNT_DAYS).fill(0);
    counts[index] += Number(r.n);
    out.set(key, counts);
  }
  return out;
}

async function loadIssue(db: Kysely<Database>, siteId: string, id: string) {
  const issue = await db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!issue) throw new AppError('not_found', 'Issue not found');
  return issue;
}

/** The sessions of an issue's evidence, by the unique (site_id, sid) index. */
export function linkedSessionsQuery(db: Kysely<Database>, siteId: string, sids: string[]) {
  return db.selectFrom('sessions').select(['sid', 'first_seen_at', 'last_seen_at', 'entry_page', 'converted', 'device_type'])
    .where('site_id', '=', siteId).where('sid', 'in', padInList(sids));
}

export async function issueDetail({ ctx, input }: { ctx: ServiceContext; input: { issue_id: string; site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['issue', site.id, input], () => issueInFull(ctx.db, site.id, input.issue_id));
}

/** The issue with its evidence, linked sessions, verifications, activity and deploy correlation. */
async function issueInFull(db: Kysely<Database>, siteId: string, issueId: string) {
  const issue = await loadIssue(db, siteId, issueId);
  const [evidence, verifications, activity, deploysBefore] = await Promise.all([
    db.selectFrom('issue_evidence').leftJoin('signals', 'signals.id', 'issue_evidence.signal_id')
      .select(['issue_evidence.signal_id', 'issue_evidence.sid', 'issue_evidence.occurred_at', 'signals.label', 'signals.confidence', 'signals.rx', 'signals.ry'])
      .where('issue_evidence.issue_id', '=', issue.id).orderBy('issue_evidence.occurred_at', 'desc').limit(20).execute(),
    db.selectFrom('issue_verifications').selectAll().where('issue_id', '=', issue.id).orderBy('created_at', 'desc').execute(),
    db.selectFrom('issue_activity').selectAll().where('issue_id', '=', issue.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute(),
    db.selectFrom('deploys').select(['id', 'version', 'environment', 'deployed_at', 'delta'])
      .where('site_id', '=', siteId).where('deployed_at', '<=', issue.first_seen_at).where('deployed_at', '>=', issue.first_seen_at - DEPLOY_WINDOW_MS)
      .orderBy('deployed_at', 'desc').limit(1).execute(),
  ]);
  const sids = [...new Set(evidence.map((e) => e.sid))];
  // Most recent first, sorted here: with ORDER BY last_seen_at SQLite (no statistics) walked the
  // site's whole sessions_site_last_seen instead of looking these few sessions up by id.
  const sessions = sids.length
    ? (await linkedSessionsQuery(db, siteId, sids).execute()).sort((a, b) => b.last_seen_at - a.last_seen_at || (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0))
    : [];
  return {
    ...toIssueRecord(issue),
    evidence: evidence.map((e) => ({ signal_id: e.signal_id, session_id: e.sid, occurred_at: iso(e.occurred_at), label: e.label ?? null, confidence: e.confidence ?? null, rx: e.rx ?? null, ry: e.ry ?? null })),
    linked_sessions: sessions.map((s) => ({ session_id: s.sid, started_at: iso(s.first_seen_at), ended_at: iso(s.last_seen_at), entry_page: s.entry_page, device_type: s.device_type, converted: s.converted === 1 })),
    verifications: verifications.map((v) => ({
      id: v.id, deploy_id: v.deploy_id, deploy_version: v.deploy_version, result: v.result, before_count: v.before_count,
      before_rate: v.before_rate, after_count: v.after_count, after_rate: v.after_rate, active_users_after: v.active_users_after,
      started_at: iso(v.started_at), decided_at: isoOrNull(v.decided_at), created_at: iso(v.created_at),
    })),
    deploy_correlation: deploysBefore[0]
      ? { deploy_id: deploysBefore[0].id, version: deploysBefore[0].version, environment: deploysBefore[0].environment, deployed_at: iso(deploysBefore[0].deployed_at), delta: deploysBefore[0].delta, relation: 'first seen within 48 hours after this deploy' }
      : null,
    activity: activity.map((a) => ({ id: a.id, kind: a.kind, actor: a.actor, message: a.message, from_status: a.from_status, to_status: a.to_status, created_at: iso(a.created_at) })),
  };
}

type UpdateIssueInput = UpdateIssueBody & { issue_id: string; site_id?: string };

/** Triage: an issue the credential may change (its org, its site for a site-scoped key; else 404). */
export async function updateIssue({ ctx, input }: { ctx: ServiceContext; input: UpdateIssueInput }): Promise<IssueRecord> {
  return (await applyIssueUpdate({ ctx, input })).issue;
}

/**
 * `noteOnceWithinMs`: a note the same credential already left on the issue, word for word,
 * within that time is not added again (a retried call, e.g. an assistant's tool call sent
 * twice); `note_repeated` says so. Everything else in the update applies as usual.
 */
export async function applyIssueUpdate({ ctx, input: { issue_id, site_id, ...input }, noteOnceWithinMs }: { ctx: ServiceContext; input: UpdateIssueInput; noteOnceWithinMs?: number }): Promise<{ issue: IssueRecord; note_repeated: boolean }> {
  const { auth, now } = ctx;
  // A named site is checked as on every route: a sibling of a site-scoped key's own site is 403.
  const named = site_id ? await resolveSite(ctx, site_id) : null;
  const found = await rowInTenant(ctx, 'ux_issues', issue_id, 'Issue');
  if (named && found.site_id !== named.id) throw new AppError('not_found', 'Issue not found');
  const siteId = found.site_id;
  const actor = actorOf(auth).label;
  // Read before the transaction: what the priority may count, when the severity may change
  // (the status does not enter the number; the order handles it).
  const basis = input.severity !== undefined ? await revenueBasis(ctx.db, siteId, now) : null;
  return ctx.db.transaction().execute(async (trx) => {
    const issue = await loadIssue(trx, siteId, issue_id);
    const next: UxIssue = { ...issue, updated_at: now };
    const activity: { kind: IssueActivityKind; message: string | null; from_status?: string; to_status?: string }[] = [];
    if (input.status !== undefined && input.status !== issue.status) {
      next.status = input.status;
      next.status_changed_at = now;
      if (input.status === 'resolved') next.resolved_at = now;
      if (input.status === 'ignored') next.ignored_at = now;
      activity.push({ kind: 'status', message: null, from_status: issue.status, to_status: input.status });
    }
    if (input.assigned_to !== undefined && input.assigned_to !== issue.assigned_to) {
      next.assigned_to = input.assigned_to === null ? null : input.assigned_to.trim();
      activity.push({ kind: 'assignment', message: next.assigned_to ? `Assigned to ${next.assigned_to}` : 'Unassigned' });
    }
    if (input.severity !== undefined) {
      // null returns to the computed severity; a value sticks until changed.
      next.severity_manual = input.severity;
      next.severity = input.severity ?? severityOf(issue.severity_score);
      if (next.severity !== issue.severity || next.severity_manual !== issue.severity_manual) {
        activity.push({ kind: 'severity', message: input.severity ? `Severity set to ${input.severity}` : `Severity back to computed (${next.severity})` });
      }
    }
    const repeated = input.note !== undefined && noteOnceWithinMs !== undefined && await trx.selectFrom('issue_activity').select('id')
      .where('issue_id', '=', issue.id).where('kind', '=', 'note').where('actor', '=', actor).where('message', '=', input.note)
      .where('created_at', '>=', now - noteOnceWithinMs).limit(1).executeTakeFirst() !== undefined;
    if (input.note !== undefined && !repeated) activity.push({ kind: 'note', message: input.note });
    // The priority from the stored inputs and the new severity, in the same write.
    if (basis && next.severity !== issue.severity) Object.assign(next, issuePriority(next, basis));
    const { id: _id, ...changes } = next;
    await trx.updateTable('ux_issues').set(changes).where('id', '=', issue.id).execute();
    for (const a of activity) {
      await trx.insertInto('issue_activity').values({ id: uuidv7(), issue_id: issue.id, actor, kind: a.kind, message: a.message, from_status: a.from_status ?? null, to_status: a.to_status ?? null, created_at: now }).execute();
    }
    if (activity.length) {
      // One event per change: the specific one where it exists, otherwise issue.updated.
      const type = next.status !== issue.status && next.status === 'verified' ? 'issue.verified' : 'issue.updated';
      await enqueue(trx, eventJob(siteId, type, toIssueRecord(next), now), now);
    }
    await recordAudit(trx, ctx, { action: 'issue.updated', targetType: 'issue', targetId: issue.id, siteId, details: { fields: Object.keys(input) } });
    return { issue: toIssueRecord(next), note_repeated: repeated };
  });
}

