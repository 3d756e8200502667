// The deploy operations: record one (from CI, and as an assistant retries it), the list, one
// deploy, and the post-deploy check.
import { Type } from '@sinclair/typebox';
import { defineOperation, READ_ACCESS, WRITE_ACCESS } from '../../domain/operation.ts';
import { DeployRecord } from '../../domain/records/deploy.ts';
import { SiteIdQuery } from '../../domain/schema-parts.ts';
import { MINUTE_MS } from '../../domain/time.ts';
import { CheckDeployQuery, CreateDeployBody, DeployCheck, DeployDetail, DeployList, DeployParams, DeploySiteQuery, ListDeploysQuery } from './schemas.ts';
import { checkDeploy, deployDetail, listDeploys, recentDeploy, recordDeploy } from './service.ts';

export const recordDeployOp = defineOperation({
  name: 'deploys.record',
  summary: 'Record a deploy (from CI); captures the site\'s score before it',
  access: WRITE_ACCESS,
  // The site from the body or, as on the other /manage routes, the query string.
  http: { method: 'POST', path: '/manage/deploys', surface: 'manage', tags: ['deploys'], status: 201 },
  input: { query: SiteIdQuery, body: CreateDeployBody },
  output: DeployRecord,
  write: { idempotent: false },
  run: (ctx, input) => recordDeploy({ ctx, input }),
});

export const listDeploysOp = defineOperation({
  name: 'deploys.list',
  summary: 'Deploys, newest first, with confusion before and after',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/deploys', surface: 'query', tags: ['query'] },
  input: { query: ListDeploysQuery },
  output: DeployList,
  run: (ctx, input) => listDeploys({ ctx, input }),
});

export const deployDetailOp = defineOperation({
  name: 'deploys.get',
  summary: 'One deploy with related issues',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/deploys/:deploy_id', surface: 'query', tags: ['query'] },
  input: { params: DeployParams, query: DeploySiteQuery },
  output: DeployDetail,
  run: (ctx, input) => deployDetail({ ctx, input }),
});

export const checkDeployOp = defineOperation({
  name: 'deploys.check',
  summary: 'Did the last deploy (or this one) make anything worse: a verdict per page and overall, with reasons',
  access: READ_ACCESS,
  input: { query: CheckDeployQuery },
  output: DeployCheck,
  run: (ctx, input) => checkDeploy({ ctx, input }),
});

/** A retried write within this time is answered with what the first call wrote, not written again. */
const RETRY_WINDOW_MS = 10 * MINUTE_MS;

/** Recording as an assistant retries it: the same version within 10 minutes answers that deploy (the MCP tool record_deploy). */
export const recordDeployOnceOp = defineOperation({
  name: 'deploys.record_once',
  summary: 'Record a deploy; the same version and environment within 10 minutes answers the one recorded',
  access: WRITE_ACCESS,
  input: { body: CreateDeployBody },
  output: Type.Composite([DeployRecord, Type.Object({ already_recorded: Type.Boolean({ description: 'true: this version was recorded for this environment within 10 minutes (a retried call): that deploy is answered, nothing was written' }) })]),
  write: { idempotent: true },
  run: async (ctx, input) => {
    const earlier = await recentDeploy({ ctx, input, withinMs: RETRY_WINDOW_MS });
    return earlier ? { ...earlier, already_recorded: true } : { ...await recordDeploy({ ctx, input }), already_recorded: false };
  },
});

export const DEPLOY_OPERATIONS = [recordDeployOp, listDeploysOp, deployDetailOp, checkDeployOp, recordDeployOnceOp];
