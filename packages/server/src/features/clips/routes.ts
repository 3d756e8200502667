// GET /v1/query/clips, /v1/query/clips/{id}, /v1/query/page-snapshot (the query surface) and
// GET /v1/manage/site/{id}/clips (a site's clip settings and totals, for the settings screen;
// they are changed by PATCH /v1/manage/site/{id}).
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { SiteIdParam } from '../../domain/schema-parts.ts';
import { getClip, listClips, pageSnapshot } from './queries.ts';
import { ClipDetail, ClipIdParams, ClipList, ClipsQuery, ClipUsage, PageSnapshot, PageSnapshotQuery } from './schemas.ts';
import { clipUsage } from './usage.ts';

export async function clipRoutes(app: App) {
  const maxRetentionDays = app.services.config.retentionDays;

  app.get('/query/clips', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Friction clips of a site, newest first, filtered by issue, session, page, signal type, device and time',
      querystring: ClipsQuery,
      response: { 200: Envelope(ClipList) },
    },
  }, async (request) => ok(await listClips({ ctx: contextOf(request), input: request.query })));

  app.get('/query/clips/:id', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One friction clip with its rrweb events',
      params: ClipIdParams,
      querystring: Type.Object({ site_id: Type.Optional(SiteIdParam) }),
      response: { 200: Envelope(ClipDetail) },
    },
  }, async (request) => ok(await getClip({ ctx: contextOf(request), input: { ...request.query, ...request.params } })));

  app.get('/query/page-snapshot', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'The latest snapshot of a page on a device class (the rrweb FullSnapshot event), for drawing heatmaps over the page; 404 when none was taken',
      querystring: PageSnapshotQuery,
      response: { 200: Envelope(PageSnapshot) },
    },
  }, async (request) => ok(await pageSnapshot({ ctx: contextOf(request), input: request.query })));

  app.get('/manage/site/:id/clips', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: {
      tags: ['sites'], summary: 'A site\'s clip retention, daily byte budget and totals (clips, snapshots, bytes, today\'s bytes against the budget)',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: Envelope(ClipUsage) },
    },
  }, async (request) => ok(await clipUsage({ ctx: contextOf(request), input: request.params, maxRetentionDays })));
}
