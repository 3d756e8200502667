// Step 3 of a cycle: decide fixes (DOMAIN.md section 4). Pending verification records are
// judged by the issue's signal rate after the deploy (or the resolution) against before;
// resolved issues with no deploy within 24 hours get a record against the resolution time;
// a verified issue whose friction forms a cluster again regresses, and so does a resolved one
// whose friction recurs as a cluster before it has a record. Ignored issues never do.
import { v7 as uuidv7 } from 'uuid';
import { OPEN_ISSUE_STATUSES } from '../domain/statuses.ts';
import { sql, type Kysely } from 'kysely';
import type { Database, UxIssue } from '../store/tables.ts';
import { enqueue, eventJob } from '../events/jobs.ts';
import { toIssueRecord } from '../domain/records/issue.ts';
import { CLUSTER_WINDOW_MS, isCluster, REGRESSED_AT_LEAST, verdict } from './issues.ts';
import { issueRate, issueRates } from './issue-rates.ts';
import { DAY_MS } from '../domain/time.ts';


export interface VerifyStepResult { decided: number; verified: number; regressed: number }

async function sessionsWithSignals(db: Kysely<Database>, issue: UxIssue, from: number, to: number): Promise<number> {
  const row = await db.selectFrom('signals').select(sql<number>`count(distinct sid)`.as('n'))
    .where('site_id', '=', issue.site_id).where('page', '=', issue.page).where('signal_type', '=', issue.type)
    .where('element', '=', issue.element_selector).where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Moves the issue to its verdict together with the verification record that decided it, in one
 * transaction: a record written without the status change would never be looked at again.
 * Only from the status the cycle read: a person who changed the issue meanwhile wins.
 */
async function setStatus(
  db: Kysely<Database>, issue: UxIssue, status: 'verified' | 'regressed', message: string, cycleAt: number,
  writeRecord: (trx: Kysely<Database>) => Promise<unknown> = async () => {},
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx.updateTable('ux_issues').set({ status, status_changed_at: cycleAt, updated_at: cycleAt })
      .where('id', '=', issue.id).where('status', '=', issue.status).executeTakeFirst();
    await writeRecord(trx);
    if (Number(moved.numUpdatedRows) === 0) return false;
    await trx.insertInto('issue_activity').values({ id: uuidv7(), issue_id: issue.id, actor: 'mallard', kind: 'status', message, from_status: issue.status, to_status: status, created_at: cycleAt }).execute();
    await enqueue(trx, eventJob(issue.site_id, status === 'verified' ? 'issue.verified' : 'issue.regressed', toIssueRecord({ ...issue, status, status_changed_at: cycleAt, updated_at: cycleAt }), cycleAt), cycleAt);
    return true;
  });
}

export async function verifyStep(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<VerifyStepResult> {
  const result = { decided: 0, verified: 0, regressed: 0 };
  const issues = new Map((await db.selectFrom('ux_issues').selectAll().where('site_id', '=', siteId)
    .where('status', 'in', ['resolved', 'verified', ...OPEN_ISSUE_STATUSES]).execute()).map((i) => [i.id, i]));

  // Resolved with no deploy within 24 hours: verify against the resolution itself. Until then,
  // with no deploy yet, a recurrence since the resolution that forms a cluster at >= 70 % of the
  // before-rate regresses the issue at once (recorded against the resolution).
  for (const issue of issues.values()) {
    if (issue.status !== 'resolved' || issue.resolved_at === null || issue.resolved_at > cycleAt) continue;
    const since = await db.selectFrom('issue_verifications').select('id').where('issue_id', '=', issue.id)
      .where('started_at', '>=', issue.resolved_at).limit(1).executeTakeFirst();
    if (since) continue;
    const before = await issueRate(db, issue, issue.resolved_at - 7 * DAY_MS, issue.resolved_at);
    const record = {
      id: uuidv7(), issue_id: issue.id, deploy_id: null, deploy_version: null, result: 'pending', before_count: before.count,
      before_rate: before.rate, after_count: 0, after_rate: null as number | null, active_users_after: 0, started_at: issue.resolved_at,
      decided_at: null as number | null, created_at: cycleAt,
    };
    if (issue.resolved_at <= cycleAt - DAY_MS) {
      await db.insertInto('issue_verifications').values(record).execute();
      continue;
    }
    const after = await issueRate(db, issue, issue.resolved_at, cycleAt);
    const sessions = await sessionsWithSignals(db, issue, issue.resolved_at, cycleAt);
    if (after.count === 0 || !isCluster(after.count, sessions) || after.rate < REGRESSED_AT_LEAST * before.rate) continue;
    const decided = { ...record, result: 'regressed', after_count: after.count, after_rate: after.rate, active_users_after: after.activeUsers, decided_at: cycleAt };
    const moved = await setStatus(db, issue, 'regressed', `Regressed: ${after.rate.toFixed(3)} signals per user since the resolution, against ${before.rate.toFixed(3)} before`, cycleAt,
      (trx) => trx.insertInto('issue_verifications').values(decided).execute());
    result.decided++;
    if (!moved) continue;
    issue.status = 'regressed';
    result.regressed++;
  }

  const pending = await db.selectFrom('issue_verifications').innerJoin('ux_issues', 'ux_issues.id', 'issue_verifications.issue_id')
    .selectAll('issue_verifications').where('ux_issues.site_id', '=', siteId).where('issue_verifications.result', '=', 'pending')
    .where('issue_verifications.started_at', '<=', cycleAt).orderBy('issue_verifications.started_at').execute()
    .then((rows) => rows.filter((record) => issues.has(record.issue_id)));
  // Records of one deploy share their spans: each page's users are counted once for them all.
  const afterRates = await issueRates(db, pending.map((record) => ({ issue: issues.get(record.issue_id)!, from: record.started_at, to: cycleAt })));
  for (const [i, record] of pending.entries()) {
    const issue = issues.get(record.issue_id)!;
    const after = afterRates[i];
    const sessions = await sessionsWithSignals(db, issue, record.started_at, cycleAt);
    const decision = verdict({ beforeRate: record.before_rate, afterCount: after.count, afterSessions: sessions, afterUsers: after.activeUsers, elapsedMs: cycleAt - record.started_at });
    const writeRecord = (trx: Kysely<Database>) => trx.updateTable('issue_verifications').set({
      after_count: after.count, after_rate: after.rate, active_users_after: after.activeUsers, result: decision,
      decided_at: decision === 'pending' ? null : cycleAt,
    }).where('id', '=', record.id).execute();
    // Only resolved issues change status; records on open issues are for information.
    if (decision === 'pending' || decision === 'inconclusive' || issue.status !== 'resolved') {
      await writeRecord(db);
      if (decision !== 'pending') result.decided++;
      continue;
    }
    result.decided++;
    const moved = await setStatus(db, issue, decision, decision === 'verified'
      ? `Verified: ${after.rate.toFixed(3)} signals per user after, against ${record.before_rate.toFixed(3)} before`
      : `Regressed: ${after.rate.toFixed(3)} signals per user after, against ${record.before_rate.toFixed(3)} before`, cycleAt, writeRecord);
    if (!moved) continue;
    issue.status = decision;
    result[decision]++;
  }

  // A verified issue whose friction forms a cluster again, at 70 % of its before-rate, regresses.
  for (const issue of issues.values()) {
    if (issue.status !== 'verified') continue;
    const last = await db.selectFrom('issue_verifications').select('before_rate').where('issue_id', '=', issue.id)
      .where('result', '=', 'verified').orderBy('decided_at', 'desc').limit(1).executeTakeFirst();
    const recent = await issueRate(db, issue, cycleAt - CLUSTER_WINDOW_MS, cycleAt);
    const sessions = await sessionsWithSignals(db, issue, cycleAt - CLUSTER_WINDOW_MS, cycleAt);
    const beforeRate = last?.before_rate ?? 0;
    if (isCluster(recent.count, sessions) && recent.rate >= REGRESSED_AT_LEAST * beforeRate) {
      if (!(await setStatus(db, issue, 'regressed', `Regressed: friction is back (${recent.count} signals from ${sessions} sessions in 24 hours)`, cycleAt))) continue;
      issue.status = 'regressed';
      result.regressed++;
    }
  }
  return result;
}
