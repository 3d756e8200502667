// Step 2 of a cycle: cluster the last 24 hours of signals by page + type + element into UX
// issues. A fingerprint finds the existing issue (whatever its status), which is updated,
// never duplicated. Running counts advance through a per-site watermark so every signal is
// counted once; sessions and users are those affected in the last 24 hours.
import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely } from 'kysely';
import type { Database, UxIssue } from '../store/tables.ts';
import { enqueue, eventJob } from '../events/jobs.ts';
import { toIssueRecord } from '../domain/records/issue.ts';
import { CLUSTER_WINDOW_MS, fingerprint, isCluster, issueTitle, severityOf, severityScore } from './issues.ts';
import { weightResolver } from '../domain/signals.ts';
import { loadSignalWeights } from '../domain/site-config.ts';
import { HOUR_MS } from '../domain/time.ts';
import { issuePriority, type PriorityBasis } from '../domain/priority.ts';
import { revenueBasis } from './revenue.ts';

const RECENT_MS = 48 * HOUR_MS;
const EVIDENCE_PER_CYCLE = 10;
const user = sql<string>`coalesce(signals.visitor_id, signals.sid)`;

export interface ClusterStepResult { created: number; updated: number }

/**
 * The EVIDENCE_PER_CYCLE newest signals of every group of [from, to), newest first, in one read
 * of the window. A query per group read the whole window again for each group on SQLite (its
 * planner, without statistics, takes the (site, time) index and filters page, type and element
 * row by row): a cycle cost groups x window rows, minutes on a busy site.
 */
async function newestPerGroup(db: Kysely<Database>, siteId: string, from: number, to: number) {
  const ranked = db.selectFrom('signals')
    .select(['id', 'sid', 'occurred_at', 'page', 'signal_type', 'element',
      sql<number>`row_number() over (partition by page, signal_type, element order by occurred_at desc, id desc)`.as('recency')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to);
  const rows = await db.selectFrom(ranked.as('ranked')).select(['id', 'sid', 'occurred_at', 'page', 'signal_type', 'element'])
    .where('recency', '<=', EVIDENCE_PER_CYCLE).orderBy('recency').execute();
  const out = new Map<string, { id: string; sid: string; occurred_at: number }[]>();
  for (const r of rows) {
    const key = `${r.page}\u0000${r.signal_type}\u0000${r.element}`;
    (out.get(key) ?? out.set(key, []).get(key)!).push({ id: r.id, sid: r.sid, occurred_at: r.occurred_at });
  }
  return out;
}

export async function clusterStep(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<ClusterStepResult> {
  const from = cycleAt - CLUSTER_WINDOW_MS;
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const groups = await db.selectFrom('signals')
    .leftJoin('sessions', (join) => join.onRef('sessions.site_id', '=', 'signals.site_id').onRef('sessions.sid', '=', 'signals.sid'))
    .select([
      'signals.page', 'signals.signal_type', 'signals.element',
      (eb) => eb.fn.countAll().as('fires'),
      sql<number>`count(distinct signals.sid)`.as('sessions'),
      sql<number>`count(distinct ${user})`.as('users'),
      sql<number>`count(distinct case when sessions.converted = 1 then signals.sid end)`.as('converted'),
      (eb) => eb.fn.min('signals.occurred_at').as('first'),
      (eb) => eb.fn.max('signals.occurred_at').as('last'),
      (eb) => eb.fn.max('signals.label').as('label'),
    ])
    .where('signals.site_id', '=', siteId).where('signals.occurred_at', '>=', from).where('signals.occurred_at', '<', cycleAt)
    .groupBy(['signals.page', 'signals.signal_type', 'signals.element']).execute();
  if (groups.length === 0) return { created: 0, updated: 0 };

  const existing = new Map((await db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId).execute()).map((i) => [i.fingerprint, i]));
  const pageUsers = new Map((await db.selectFrom('events').select(['page', sql<number>`count(distinct coalesce(visitor_id, sid))`.as('n')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', cycleAt).groupBy('page').execute())
    .map((r) => [r.page, Number(r.n)]));
  const state = await db.selectFrom('pipeline_state').select('issues_counted_until').where('site_id', '=', siteId).executeTakeFirst();
  const countedUntil = state?.issues_counted_until ?? null;
  // Signals since the watermark, per group: what each existing issue's running count gains.
  const sinceWatermark = countedUntil !== null && countedUntil < cycleAt
    ? new Map((await db.selectFrom('signals').select(['page', 'signal_type', 'element', (eb) => eb.fn.countAll().as('n')])
      .where('site_id', '=', siteId).where('occurred_at', '>=', countedUntil).where('occurred_at', '<', cycleAt)
      .groupBy(['page', 'signal_type', 'element']).execute()).map((r) => [`${r.page}\u0000${r.signal_type}\u0000${r.element}`, Number(r.n)]))
    : new Map<string, number>();
  const recent = new Map((await db.selectFrom('signals').select(['page', 'signal_type', 'element', (eb) => eb.fn.countAll().as('n')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', cycleAt - RECENT_MS).where('occurred_at', '<', cycleAt)
    .groupBy(['page', 'signal_type', 'element']).execute()).map((r) => [`${r.page}\u0000${r.signal_type}\u0000${r.element}`, Number(r.n)]));
  const evidence = await newestPerGroup(db, siteId, from, cycleAt);
  // Read once, and only when a new issue needs its first priority (most cycles create none).
  let basis: PriorityBasis | undefined;

  let created = 0;
  let updated = 0;
  await db.transaction().execute(async (trx) => {
    for (const g of groups) {
      const key = `${g.page}\u0000${g.signal_type}\u0000${g.element}`;
      const fp = fingerprint(siteId, g.page, g.signal_type, g.element);
      const issue = existing.get(fp);
      const fires = Number(g.fires);
      const sessions = Number(g.sessions);
      if (!issue && !isCluster(fires, sessions)) continue;
      const users = Number(g.users);
      const gained = !issue || countedUntil === null || countedUntil >= cycleAt ? 0 : sinceWatermark.get(key) ?? 0;
      const lifetime = issue ? issue.signal_count + gained : fires;
      const score = severityScore({
        type: g.signal_type, weight: weight(g.signal_type), affectedUsers: users, pageActiveUsers: pageUsers.get(g.page) ?? users,
        fires24h: fires, page: g.page, revenueShare: sessions ? Number(g.converted) / sessions : 0,
        recentShare: Math.min(1, (recent.get(key) ?? fires) / Math.max(1, lifetime)),
      });
      const label = g.label ?? null;
      if (!issue) {
        // Its priority from what this step knows (24-hour users, a lower bound of the 7-day
        // count; no revenue estimate yet), so issue.created carries one; step 4 refines it.
        const inputs = { users_7d: users, signal_weight: weight(g.signal_type), revenue_at_risk_cents: null };
        const severity = severityOf(score);
        const row: UxIssue = {
          id: uuidv7(), site_id: siteId, fingerprint: fp, title: issueTitle(g.signal_type, label, g.element, g.page),
          page: g.page, element_selector: g.element, element_label: label, type: g.signal_type,
          severity, severity_score: score, severity_manual: null, status: 'open', assigned_to: null,
          signal_count: fires, session_count: sessions, user_count: users, first_seen_at: Number(g.first), last_seen_at: Number(g.last),
          resolved_at: null, ignored_at: null, status_changed_at: cycleAt, created_at: cycleAt, updated_at: cycleAt,
          ticket_provider: null, ticket_id: null, ticket_url: null, priority_inputs_at: null,
          ...inputs, ...issuePriority({ severity, type: g.signal_type, ...inputs }, basis ??= await revenueBasis(trx, siteId, cycleAt)),
        };
        await trx.insertInto('ux_issues').values(row).execute();
        await trx.insertInto('issue_activity').values({ id: uuidv7(), issue_id: row.id, actor: 'mallard', kind: 'created', message: `Detected: ${fires} signals from ${sessions} sessions in 24 hours`, from_status: null, to_status: 'open', created_at: cycleAt }).execute();
        await enqueue(trx, eventJob(siteId, 'issue.created', toIssueRecord(row), cycleAt), cycleAt);
        existing.set(fp, row);
        created++;
      } else {
        await trx.updateTable('ux_issues').set({
          signal_count: lifetime, session_count: sessions, user_count: users,
          last_seen_at: Math.max(issue.last_seen_at, Number(g.last)), first_seen_at: Math.min(issue.first_seen_at, Number(g.first)),
          element_label: issue.element_label ?? label, severity_score: score,
          // A severity set by hand sticks.
          severity: issue.severity_manual ?? severityOf(score), updated_at: cycleAt,
        }).where('id', '=', issue.id).execute();
        updated++;
      }
      const target = existing.get(fp)!;
      const samples = evidence.get(key) ?? [];
      if (samples.length) {
        await trx.insertInto('issue_evidence').values(samples.map((s) => ({ id: uuidv7(), issue_id: target.id, signal_id: s.id, sid: s.sid, occurred_at: s.occurred_at })))
          .onConflict((oc) => oc.columns(['issue_id', 'signal_id']).doNothing()).execute();
      }
    }
    if (countedUntil === null || countedUntil < cycleAt) {
      await trx.insertInto('pipeline_state').values({ site_id: siteId, issues_counted_until: cycleAt })
        .onConflict((oc) => oc.column('site_id').doUpdateSet({ issues_counted_until: cycleAt })).execute();
    }
  });
  return { created, updated };
}
