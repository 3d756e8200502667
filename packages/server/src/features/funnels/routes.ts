// GET /v1/query/funnel (an ad-hoc funnel) and the saved funnels on the manage surface: read
// by any member of the org (viewers included), written by admins, as alert rules are.
import type { App } from '../../http/app-types.ts';
import { Envelope, ok, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { Deleted, SiteIdQuery } from '../../domain/schema-parts.ts';
import { CreateFunnelBody, Funnel, FunnelList, FunnelParams, FunnelQuery, SavedFunnel, UpdateFunnelBody } from './schemas.ts';
import { funnelReport } from './funnel-report.ts';
import { createFunnel, deleteFunnel, listFunnels, updateFunnel } from './service.ts';

const write = { surface: 'manage', scopes: ['manage:write'], role: 'admin' } as const;

export async function funnelRoutes(app: App) {
  app.get('/query/funnel', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'An ad-hoc funnel: per ordered step, who entered, who went on, the median time to the next step and the friction met there',
      querystring: FunnelQuery,
      response: { 200: Envelope(Funnel) },
    },
  }, async (request, reply) => okOnce(reply, await funnelReport({ ctx: contextOf(request), input: request.query })));

  app.get('/manage/funnels', {
    config: { access: { ...write, role: 'viewer' } },
    schema: { tags: ['funnels'], summary: "List the site's saved funnels", querystring: SiteIdQuery, response: { 200: Envelope(FunnelList) } },
  }, async (request) => ok(await listFunnels({ ctx: contextOf(request), input: request.query })));

  app.post('/manage/funnels', {
    config: { access: write },
    schema: { tags: ['funnels'], summary: 'Save a funnel', body: CreateFunnelBody, response: { 201: Envelope(SavedFunnel) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createFunnel({ ctx: contextOf(request), input: request.body }));
  });

  app.patch('/manage/funnels/:id', {
    config: { access: write },
    schema: { tags: ['funnels'], summary: 'Change a saved funnel (partial)', params: FunnelParams, body: UpdateFunnelBody, response: { 200: Envelope(SavedFunnel) } },
  }, async (request) => ok(await updateFunnel({ ctx: contextOf(request), input: { ...request.body, ...request.params } })));

  app.delete('/manage/funnels/:id', {
    config: { access: write },
    schema: { tags: ['funnels'], summary: 'Delete a saved funnel', params: FunnelParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await deleteFunnel({ ctx: contextOf(request), input: request.params })));
}
