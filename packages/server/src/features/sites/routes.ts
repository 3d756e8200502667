import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { Type } from '@sinclair/typebox';
import { CreateSiteBody, SiteParams, SiteRecord, UpdateSiteBody } from './schemas.ts';
import { createSite, deleteSite, listSites, updateSite } from './service.ts';

const write = { surface: 'manage', scopes: ['manage:write'], role: 'admin' } as const;

export async function siteRoutes(app: App) {
  // The bound of a site's own retention_days (jobs/retention.ts applies the smaller).
  const maxRetentionDays = app.services.config.retentionDays;
  app.get('/manage/sites', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: { tags: ['sites'], summary: 'List the org\'s sites', response: { 200: Envelope(Type.Object({ sites: Type.Array(SiteRecord) })) } },
  }, async (request) => ok(await listSites({ ctx: contextOf(request), maxRetentionDays })));

  app.post('/manage/site', {
    config: { access: { ...write, orgScope: true } },
    schema: { tags: ['sites'], summary: 'Create a site', body: CreateSiteBody, response: { 201: Envelope(SiteRecord) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createSite({ ctx: contextOf(request), input: request.body, maxRetentionDays }));
  });

  app.patch('/manage/site/:id', {
    config: { access: write },
    schema: { tags: ['sites'], summary: 'Rename a site, change its URL, allowed origins, retention (within the instance\'s MALLARD_RETENTION_DAYS), clip retention or daily clip byte budget', params: SiteParams, body: UpdateSiteBody, response: { 200: Envelope(SiteRecord) } },
  }, async (request) => ok(await updateSite({ ctx: contextOf(request), input: { ...request.body, ...request.params }, maxRetentionDays })));

  app.delete('/manage/site/:id', {
    config: { access: { ...write, orgScope: true } },
    schema: { tags: ['sites'], summary: 'Delete a site and all its data', params: SiteParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await deleteSite({ ctx: contextOf(request), input: request.params })));
}
