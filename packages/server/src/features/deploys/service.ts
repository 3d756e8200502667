// Deploys: recorded with the site's score at that moment (confusion_before); the pipeline
// fills confusion_after. A production deploy (or an environment the site's config lists)
// opens a verification record for every resolved and open issue.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import { iso, isoOrNull } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { enqueue, eventJob } from '../../events/jobs.ts';
import type { AuthContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { issueRate } from '../../pipeline/issue-rates.ts';
import { effectiveConfig } from '../../domain/site-config.ts';
import { overallScore } from '../../pipeline/scoring.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import type { Store } from '../../store/db.ts';
import type { Database, DeploysTable } from '../../store/tables.ts';
import { cleanHttpUrl } from '../sites/service.ts';
import type { CreateDeployBody, DeployRecord } from './schemas.ts';
import { DAY_MS } from '../../domain/time.ts';

export const DEPLOY_MAX_AGE_MS = 48 * 60 * 60 * 1000;
/** Clock skew allowed for a deployed_at just ahead of the server. */
const FUTURE_SKEW_MS = 60 * 1000;

export function toDeployRecord(row: DeploysTable): DeployRecord {
  return {
    id: row.id, site_id: row.site_id, version: row.version, environment: row.environment,
    deployed_at: iso(row.deployed_at), commit_sha: row.commit_sha, author: row.author, pr_number: row.pr_number,
    provider: row.provider, url: row.url, description: row.description,
    confusion_before: row.confusion_before, confusion_after: row.confusion_after, delta: row.delta,
    pages_before: JSON.parse(row.pages_before), pages_after: row.pages_after ? JSON.parse(row.pages_after) : null,
    after_computed_at: isoOrNull(row.after_computed_at), created_at: iso(row.created_at),
  };
}

/** The site's score right now: the latest page scores, weighted by their active users. */
export async function currentScores(db: Kysely<Database>, siteId: string) {
  const rows = await db.selectFrom('page_scores').select(['page', 'score', 'active_users']).where('site_id', '=', siteId)
    .orderBy('score', 'desc').orderBy('active_users', 'desc').orderBy('page').execute();
  return { overall: overallScore(rows.map((r) => ({ score: r.score, activeUsers: r.active_users }))), pages: rows };
}

/** Environments whose deploys drive verification: production, plus what the site's config lists. */
async function verificationEnvironments(db: Kysely<Database>, siteId: string): Promise<Set<string>> {
  const { config } = await effectiveConfig(db, siteId, 'production');
  return new Set(['production', ...(config.verification_environments ?? [])]);
}

export async function recordDeploy(store: Store, auth: AuthContext, input: CreateDeployBody, now: number): Promise<DeployRecord> {
  const site = await resolveSite({ db: store.db, auth: auth }, input.site_id);
  let deployedAt = now;
  if (input.deployed_at) {
    deployedAt = Date.parse(input.deployed_at);
    if (deployedAt > now + FUTURE_SKEW_MS) throw invalidInput('deployed_at', 'must not be in the future');
    if (deployedAt < now - DEPLOY_MAX_AGE_MS) throw invalidInput('deployed_at', 'must not be more than 48 hours ago');
  }
  const url = input.url === undefined ? null : cleanHttpUrl(input.url);
  const environment = input.environment ?? 'production';
  const before = await currentScores(store.db, site.id);
  const verifies = (await verificationEnvironments(store.db, site.id)).has(environment);
  const issues = verifies
    ? await store.db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id)
      .where('status', 'in', ['resolved', ...OPEN_ISSUE_STATUSES]).execute()
    : [];
  // Before-rates: 7 days before resolution for resolved issues, before the deploy for open ones.
  const rates = await Promise.all(issues.map((issue) => {
    const until = issue.status === 'resolved' && issue.resolved_at ? issue.resolved_at : deployedAt;
    return issueRate(store.db, issue, until - 7 * DAY_MS, until);
  }));

  const row: DeploysTable = {
    id: uuidv7(), site_id: site.id, version: input.version.trim(), environment, deployed_at: deployedAt,
    commit_sha: input.commit_sha ?? null, author: input.author ?? null, pr_number: input.pr_number ?? null,
    provider: input.provider ?? null, url, description: input.description ?? null,
    confusion_before: before.overall, confusion_after: null, delta: null,
    pages_before: JSON.stringify(before.pages), pages_after: null, after_computed_at: null, created_at: now,
  };
  const record = toDeployRecord(row);
  await store.db.transaction().execute(async (trx) => {
    await trx.insertInto('deploys').values(row).execute();
    for (const [i, issue] of issues.entries()) {
      await trx.insertInto('issue_verifications').values({
        id: uuidv7(), issue_id: issue.id, deploy_id: row.id, deploy_version: row.version, result: 'pending',
        before_count: rates[i].count, before_rate: rates[i].rate, after_count: 0, after_rate: null,
        active_users_after: 0, started_at: deployedAt, decided_at: null, created_at: now,
      }).execute();
    }
    await enqueue(trx, eventJob(site.id, 'deploy.recorded', record, now), now);
    await recordAudit(trx, auth, { action: 'deploy.recorded', targetType: 'deploy', targetId: row.id, siteId: site.id, details: { version: row.version, environment } }, now);
  });
  return record;
}

export async function listDeploys(store: Store, siteId: string, environment: string | undefined, offset: number, limit: number) {
  let query = store.db.selectFrom('deploys').where('site_id', '=', siteId);
  if (environment) query = query.where('environment', '=', environment);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('deployed_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { deploys: rows.map(toDeployRecord), total: Number(count.n), offset, limit };
}

export async function getDeploy(store: Store, siteId: string, id: string) {
  const row = await store.db.selectFrom('deploys').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Deploy not found');
  const verified = await store.db.selectFrom('issue_verifications')
    .innerJoin('ux_issues', 'ux_issues.id', 'issue_verifications.issue_id')
    .select(['ux_issues.id', 'ux_issues.title', 'ux_issues.page', 'ux_issues.type', 'ux_issues.severity', 'ux_issues.status', 'issue_verifications.result'])
    .where('issue_verifications.deploy_id', '=', id).where('ux_issues.site_id', '=', siteId).execute();
  const appeared = await store.db.selectFrom('ux_issues').select(['id', 'title', 'page', 'type', 'severity', 'status'])
    .where('site_id', '=', siteId).where('first_seen_at', '>=', row.deployed_at).where('first_seen_at', '<', row.deployed_at + DEPLOY_MAX_AGE_MS).execute();
  const seen = new Set(verified.map((v) => v.id));
  return {
    ...toDeployRecord(row),
    related_issues: [
      ...verified.map((v) => ({ id: v.id, title: v.title, page: v.page, type: v.type, severity: v.severity, status: v.status, relation: 'verification', verification_result: v.result })),
      ...appeared.filter((a) => !seen.has(a.id)).map((a) => ({ ...a, relation: 'appeared_after', verification_result: null })),
    ],
  };
}
