// Deploys: recorded with the site's score at that moment (confusion_before); the pipeline
// fills confusion_after. A production deploy (or an environment the site's config lists)
// opens a verification record for every resolved and open issue.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import type { Static } from '@sinclair/typebox';
import { recordAudit } from '../../audit/record.ts';
import { enqueue, eventJob } from '../../events/jobs.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { cleanHttpUrl } from '../../domain/clean-input.ts';
import { toDeployRecord, type DeployRecord } from '../../domain/records/deploy.ts';
import { effectiveConfig } from '../../domain/site-config.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { assertUuid, resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/time.ts';
import { issueRates } from '../../pipeline/issue-rates.ts';
import { overallScore } from '../../pipeline/scoring.ts';
import type { Database, DeploysTable } from '../../store/tables.ts';
import { deployWithRelatedIssues } from './deploy-detail.ts';
import { deployVerdict, FAIL_DELTA, WARN_DELTA } from './deploy-verdict.ts';
import type { CreateDeployBody, ListDeploysQuery } from './schemas.ts';

const DEPLOY_MAX_AGE_MS = 48 * HOUR_MS;
/** Clock skew allowed for a deployed_at just ahead of the server. */
const FUTURE_SKEW_MS = MINUTE_MS;

/** The site's score right now: the latest page scores, weighted by their active users. */
async function currentScores(db: Kysely<Database>, siteId: string) {
  const rows = await db.selectFrom('page_scores').select(['page', 'score', 'active_users']).where('site_id', '=', siteId)
    .orderBy('score', 'desc').orderBy('active_users', 'desc').orderBy('page').execute();
  return { overall: overallScore(rows.map((r) => ({ score: r.score, activeUsers: r.active_users }))), pages: rows };
}

/** Environments whose deploys drive verification: production, plus what the site's config lists. */
async function verificationEnvironments(db: Kysely<Database>, siteId: string): Promise<Set<string>> {
  const { config } = await effectiveConfig(db, siteId, 'production');
  return new Set(['production', ...(config.verification_environments ?? [])]);
}

/**
 * The deploy of this version to this environment recorded within `withinMs`, if any: a second
 * call recording it (a retried call, e.g. an assistant's tool call sent twice) is answered with it.
 */
export async function recentDeploy({ ctx, input, withinMs }: { ctx: ServiceContext; input: CreateDeployBody; withinMs: number }): Promise<DeployRecord | null> {
  const site = await resolveSite(ctx, input.site_id);
  const row = await ctx.db.selectFrom('deploys').selectAll().where('site_id', '=', site.id).where('version', '=', input.version.trim())
    .where('environment', '=', input.environment ?? 'production').where('created_at', '>=', ctx.now - withinMs)
    .orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  return row ? toDeployRecord(row) : null;
}

export async function recordDeploy({ ctx, input }: { ctx: ServiceContext; input: CreateDeployBody }): Promise<DeployRecord> {
  const { db, auth, now } = ctx;
  const site = await resolveSite(ctx, input.site_id);
  let deployedAt = now;
  if (input.deployed_at) {
    deployedAt = Date.parse(input.deployed_at);
    if (deployedAt > now + FUTURE_SKEW_MS) throw invalidInput('deployed_at', 'must not be in the future');
    if (deployedAt < now - DEPLOY_MAX_AGE_MS) throw invalidInput('deployed_at', 'must not be more than 48 hours ago');
  }
  const url = input.url === undefined ? null : cleanHttpUrl(input.url);
  const environment = input.environment ?? 'production';
  const before = await currentScores(db, site.id);
  const verifies = (await verificationEnvironments(db, site.id)).has(environment);
  const issues = verifies
    ? await db.selectFrom('ux_issues').selectAll().where('site_id', '=', site.id)
      .where('status', 'in', ['resolved', ...OPEN_ISSUE_STATUSES]).execute()
    : [];
  // Before-rates: 7 days before resolution for resolved issues, before the deploy for open ones.
  // They read a week of the pages' events: in the background lane, so a deploy neither stalls
  // the main thread (on SQLite) nor holds the routes' readers for as long as that takes.
  const rates = await issueRates(ctx.backgroundReadDb ?? db, issues.map((issue) => {
    const until = issue.status === 'resolved' && issue.resolved_at ? issue.resolved_at : deployedAt;
    return { issue, from: until - 7 * DAY_MS, to: until };
  }));

  const row: DeploysTable = {
    id: uuidv7(), site_id: site.id, version: input.version.trim(), environment, deployed_at: deployedAt,
    commit_sha: input.commit_sha ?? null, author: input.author ?? null, pr_number: input.pr_number ?? null,
    provider: input.provider ?? null, url, description: input.description ?? null,
    confusion_before: before.overall, confusion_after: null, delta: null,
    pages_before: JSON.stringify(before.pages), pages_after: null, after_computed_at: null, created_at: now, score_scale: 'calibrated',
  };
  const record = toDeployRecord(row);
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('deploys').values(row).execute();
    for (const [i, issue] of issues.entries()) {
      await trx.insertInto('issue_verifications').values({
        id: uuidv7(), issue_id: issue.id, deploy_id: row.id, deploy_version: row.version, result: 'pending',
        before_count: rates[i].count, before_rate: rates[i].rate, after_count: 0, after_rate: null,
        active_users_after: 0, started_at: deployedAt, decided_at: null, created_at: now,
      }).execute();
    }
    await enqueue(trx, eventJob(site.id, 'deploy.recorded', record, now), now);
    await recordAudit(trx, ctx, { action: 'deploy.recorded', targetType: 'deploy', targetId: row.id, siteId: site.id, details: { version: row.version, environment } });
  });
  return record;
}

export async function listDeploys({ ctx, input }: { ctx: ServiceContext; input: Static<typeof ListDeploysQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  const { environment, offset = 0, limit = 50 } = input;
  return cachedRead(ctx, ['deploys', site.id, input], async () => {
    let query = ctx.db.selectFrom('deploys').where('site_id', '=', site.id);
    if (environment) query = query.where('environment', '=', environment);
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('deployed_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { deploys: rows.map(toDeployRecord), total: Number(count.n), offset, limit };
  });
}

export async function deployDetail({ ctx, input }: { ctx: ServiceContext; input: { deploy_id: string; site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  return cachedRead(ctx, ['deploy', site.id, input], () => deployWithRelatedIssues(ctx.db, site.id, input.deploy_id.toLowerCase()));
}

/** DOMAIN §9's post-deploy verdict for one deploy (default the site's latest), with its reasons. */
export async function checkDeploy({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; deploy_id?: string; environment?: string } }) {
  const deployId = input.deploy_id === undefined ? undefined : assertUuid(input.deploy_id, 'deploy_id');
  const site = await resolveSite(ctx, input.site_id);
  const environment = input.environment ?? 'production';
  const id = deployId ?? (await ctx.db.selectFrom('deploys').select('id').where('site_id', '=', site.id).where('environment', '=', environment)
    .orderBy('deployed_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id;
  if (!id) throw new AppError('not_found', `No ${environment} deploy is recorded for this site yet (record one with POST /v1/manage/deploys, or name another environment)`, { environment });
  const detail = await deployWithRelatedIssues(ctx.db, site.id, id);
  const appeared = detail.related_issues.filter((i) => i.relation === 'appeared_after');
  const newCritical = appeared.filter((i) => i.severity === 'critical');
  const newHigh = appeared.filter((i) => i.severity === 'high');
  return {
    deploy: {
      id: detail.id, version: detail.version, environment: detail.environment, deployed_at: detail.deployed_at,
      confusion_before: detail.confusion_before, confusion_after: detail.confusion_after, delta: detail.delta, after_computed_at: detail.after_computed_at,
    },
    ...deployVerdict(detail.pages_before, detail.pages_after, newCritical, newHigh),
    thresholds: { warn_delta: WARN_DELTA, fail_delta: FAIL_DELTA },
    new_critical_issues: newCritical,
    new_high_issues: newHigh,
  };
}
