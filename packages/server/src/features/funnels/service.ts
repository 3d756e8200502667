// Saved funnels: a site's named steps and window, listed by anyone who may read the manage
// surface, written by admins. Each write and its audit row commit in one transaction; a
// funnel is found by id only within the caller's tenancy (rowInTenant), else 404.
import { v7 as uuidv7 } from 'uuid';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { actorOf, type ServiceContext } from '../../domain/context.ts';
import { cleanName } from '../../domain/clean-input.ts';
import { assertUuid, resolveSite, rowInTenant } from '../../domain/tenancy.ts';
import type { FunnelsTable } from '../../store/tables.ts';
import { funnelReport } from './funnel-report.ts';
import type { CreateFunnelBody, Funnel, SavedFunnel, UpdateFunnelBody } from './schemas.ts';
import { DEFAULT_WINDOW_MINUTES, parseSteps } from './steps.ts';
import type { ReadFilterInput } from '../../domain/read-window.ts';

export function toSavedFunnel(r: FunnelsTable): SavedFunnel {
  return {
    id: r.id, site_id: r.site_id, name: r.name, steps: JSON.parse(r.steps) as string[], window_minutes: r.window_minutes,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at),
  };
}

/** Steps as stored: each checked and trimmed (the same rules as the query's `steps`). */
const cleanSteps = (steps: readonly string[]) => JSON.stringify(parseSteps(steps).map((s) => s.step));

export async function listFunnels({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }): Promise<{ funnels: SavedFunnel[] }> {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('funnels').selectAll().where('site_id', '=', site.id).orderBy('created_at').orderBy('id').execute();
  return { funnels: rows.map(toSavedFunnel) };
}

export async function getFunnel({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<SavedFunnel> {
  return toSavedFunnel(await rowInTenant(ctx, 'funnels', assertUuid(input.id, 'funnel_id'), 'Funnel'));
}

export async function createFunnel({ ctx, input }: { ctx: ServiceContext; input: CreateFunnelBody }): Promise<SavedFunnel> {
  const site = await resolveSite(ctx, input.site_id);
  const row: FunnelsTable = {
    id: uuidv7(), site_id: site.id, name: cleanName(input.name), steps: cleanSteps(input.steps),
    window_minutes: input.window_minutes ?? DEFAULT_WINDOW_MINUTES, created_by: actorOf(ctx.auth).id, created_at: ctx.now, updated_at: ctx.now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('funnels').values(row).execute();
    await recordAudit(trx, ctx, { action: 'funnel.created', targetType: 'funnel', targetId: row.id, siteId: site.id, details: { steps: JSON.parse(row.steps).length } });
  });
  return toSavedFunnel(row);
}

export async function updateFunnel({ ctx, input: { id, ...input } }: { ctx: ServiceContext; input: UpdateFunnelBody & { id: string } }): Promise<SavedFunnel> {
  const funnel = await rowInTenant(ctx, 'funnels', assertUuid(id, 'id'), 'Funnel');
  const next: FunnelsTable = {
    ...funnel,
    name: input.name === undefined ? funnel.name : cleanName(input.name),
    steps: input.steps === undefined ? funnel.steps : cleanSteps(input.steps),
    window_minutes: input.window_minutes ?? funnel.window_minutes,
    updated_at: ctx.now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('funnels').set({ name: next.name, steps: next.steps, window_minutes: next.window_minutes, updated_at: next.updated_at })
      .where('id', '=', funnel.id).execute();
    await recordAudit(trx, ctx, { action: 'funnel.updated', targetType: 'funnel', targetId: funnel.id, siteId: funnel.site_id, details: { fields: Object.keys(input) } });
  });
  return toSavedFunnel(next);
}

export async function deleteFunnel({ ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } }): Promise<{ id: string; deleted: true }> {
  const funnel = await rowInTenant(ctx, 'funnels', assertUuid(id, 'id'), 'Funnel');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('funnels').where('id', '=', funnel.id).execute();
    await recordAudit(trx, ctx, { action: 'funnel.deleted', targetType: 'funnel', targetId: funnel.id, siteId: funnel.site_id });
  });
  return { id: funnel.id, deleted: true };
}

/** A saved funnel run over a window (the MCP tool and resources): its steps and window_minutes, the filters given. */
export async function savedFunnelReport({ ctx, input }: { ctx: ServiceContext; input: ReadFilterInput & { id: string } }): Promise<Funnel & { funnel: SavedFunnel }> {
  const funnel = await getFunnel({ ctx, input });
  const report = await funnelReport({ ctx, input: { site_id: funnel.site_id, steps: funnel.steps, window_minutes: funnel.window_minutes, device: input.device, from: input.from, to: input.to } });
  return { funnel, ...report };
}
