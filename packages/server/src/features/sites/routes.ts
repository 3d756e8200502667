import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { Type } from '@sinclair/typebox';
import { CreateSiteBody, SiteParams, SiteRecord, UpdateSiteBody } from './schemas.ts';
import { createSite, deleteSite, listSites, updateSite } from './service.ts';
import { purgeDeletedSites } from '../../jobs/purge-sites.ts';

const write = { surface: 'manage', scopes: ['manage:write'], role: 'admin' } as const;

export async function siteRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/manage/sites', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: { tags: ['sites'], summary: 'List the org\'s sites', response: { 200: Envelope(Type.Object({ sites: Type.Array(SiteRecord) })) } },
  }, async (request) => ok({ sites: await listSites(store, request.auth!) }));

  app.post('/manage/site', {
    config: { access: { ...write, orgScope: true } },
    schema: { tags: ['sites'], summary: 'Create a site', body: CreateSiteBody, response: { 201: Envelope(SiteRecord) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createSite(store, request.auth!, request.body, clock.now()));
  });

  app.patch('/manage/site/:id', {
    config: { access: write },
    schema: { tags: ['sites'], summary: 'Rename a site or change its URL', params: SiteParams, body: UpdateSiteBody, response: { 200: Envelope(SiteRecord) } },
  }, async (request) => ok(await updateSite(store, request.auth!, request.params.id, request.body, clock.now())));

  app.delete('/manage/site/:id', {
    config: { access: { ...write, orgScope: true } },
    schema: { tags: ['sites'], summary: 'Delete a site and all its data', params: SiteParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => {
    await deleteSite(store, request.auth!, request.params.id, clock.now());
    // The site is already unreachable; its rows go in the background.
    purgeDeletedSites(store).catch((err) => request.log.error({ err }, 'purging deleted site failed'));
    return ok({ id: request.params.id, deleted: true });
  });
}
