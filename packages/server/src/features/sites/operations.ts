// The sites a credential can read, with the ids an org-level credential passes as site_id; and
// the org's sites on /manage: listed to any user or manage key, created, changed and deleted by
// an admin (creating and deleting a site needs an org-scoped credential). A site's own
// retention_days is bounded by the instance's MALLARD_RETENTION_DAYS (the process's config;
// jobs/retention.ts applies the smaller).
import { Type } from '@sinclair/typebox';
import { partOf } from '../../domain/context.ts';
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { Deleted, Uuid } from '../../domain/schema-parts.ts';
import { CreateSiteBody, SiteParams, SiteRecord, UpdateSiteBody } from './schemas.ts';
import { createSite, deleteSite, listSites, siteDirectory, updateSite } from './service.ts';

export const SiteEntry = Type.Object({ id: Uuid, name: Type.String(), url: Type.String() });

export const siteDirectoryOp = defineOperation({
  name: 'sites.directory',
  summary: 'The sites this credential can read: id, name and url',
  access: READ_ACCESS,
  input: {},
  output: Type.Object({ sites: Type.Array(SiteEntry), total: Type.Integer() }),
  run: async (ctx) => {
    const sites = await siteDirectory({ ctx });
    return { sites, total: sites.length };
  },
});

/** Site writes: a manage key or an admin. */
const SITE_WRITE = { scopes: ['manage:write'], role: 'admin' } as const;

export const listSitesOp = defineOperation({
  name: 'sites.list',
  summary: 'List the org\'s sites',
  access: { scopes: ['manage:write'], role: 'viewer' },
  http: { method: 'GET', path: '/manage/sites', surface: 'manage', tags: ['sites'] },
  input: {},
  output: Type.Object({ sites: Type.Array(SiteRecord) }),
  run: (ctx) => listSites({ ctx, maxRetentionDays: partOf(ctx, 'config').retentionDays }),
});

export const createSiteOp = defineOperation({
  name: 'sites.create',
  summary: 'Create a site',
  access: { ...SITE_WRITE, orgScope: true },
  http: { method: 'POST', path: '/manage/site', surface: 'manage', tags: ['sites'], status: 201 },
  input: { body: CreateSiteBody },
  output: SiteRecord,
  write: { idempotent: false },
  run: (ctx, input) => createSite({ ctx, input, maxRetentionDays: partOf(ctx, 'config').retentionDays }),
});

export const updateSiteOp = defineOperation({
  name: 'sites.update',
  summary: 'Rename a site, change its URL, allowed origins, retention (within the instance\'s MALLARD_RETENTION_DAYS), clip retention or daily clip byte budget',
  access: SITE_WRITE,
  http: { method: 'PATCH', path: '/manage/site/:id', surface: 'manage', tags: ['sites'] },
  input: { params: SiteParams, body: UpdateSiteBody },
  output: SiteRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateSite({ ctx, input, maxRetentionDays: partOf(ctx, 'config').retentionDays }),
});

export const deleteSiteOp = defineOperation({
  name: 'sites.delete',
  summary: 'Delete a site and all its data',
  access: { ...SITE_WRITE, orgScope: true },
  http: { method: 'DELETE', path: '/manage/site/:id', surface: 'manage', tags: ['sites'] },
  input: { params: SiteParams },
  output: Deleted,
  write: { idempotent: false },
  run: (ctx, input) => deleteSite({ ctx, input }),
});

export const SITE_OPERATIONS = [siteDirectoryOp, listSitesOp, createSiteOp, updateSiteOp, deleteSiteOp];
