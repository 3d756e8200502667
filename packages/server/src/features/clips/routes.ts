// GET /v1/manage/site/{id}/clips (a site's clip settings and totals, for the settings screen;
// they are changed by PATCH /v1/manage/site/{id}).
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { ClipUsage } from './schemas.ts';
import { clipUsage } from './usage.ts';

export async function clipRoutes(app: App) {
  const maxRetentionDays = app.services.config.retentionDays;

  app.get('/manage/site/:id/clips', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: {
      tags: ['sites'], summary: 'A site\'s clip retention, daily byte budget and totals (clips, snapshots, bytes, today\'s bytes against the budget)',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: Envelope(ClipUsage) },
    },
  }, async (request) => ok(await clipUsage({ ctx: contextOf(request), input: request.params, maxRetentionDays })));
}
