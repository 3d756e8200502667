import type { App } from '../../http/app-types.ts';
import { Envelope, ok, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { DeployRecord } from '../../domain/records/deploy.ts';
import { SiteIdQuery } from '../../domain/schema-parts.ts';
import { CreateDeployBody, DeployDetail, DeployList, DeployParams, DeploySiteQuery, ListDeploysQuery } from './schemas.ts';
import { deployDetail, listDeploys, recordDeploy } from './service.ts';

export async function deployRoutes(app: App) {
  app.post('/manage/deploys', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'member' } },
    schema: { tags: ['deploys'], summary: 'Record a deploy (from CI); captures the site\'s score before it', querystring: SiteIdQuery, body: CreateDeployBody, response: { 201: Envelope(DeployRecord) } },
  }, async (request, reply) => {
    reply.code(201);
    // The site from the body or, as on the other /manage routes, the query string.
    return ok(await recordDeploy({ ctx: contextOf(request), input: { ...request.query, ...request.body } }));
  });

  app.get('/query/deploys', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Deploys, newest first, with confusion before and after', querystring: ListDeploysQuery,
      response: { 200: Envelope(DeployList) },
    },
  }, async (request, reply) => okOnce(reply, await listDeploys({ ctx: contextOf(request), input: request.query })));

  app.get('/query/deploys/:deploy_id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One deploy with related issues',
      params: DeployParams, querystring: DeploySiteQuery,
      response: { 200: Envelope(DeployDetail) },
    },
  }, async (request, reply) => okOnce(reply, await deployDetail({ ctx: contextOf(request), input: { ...request.query, ...request.params } })));
}
