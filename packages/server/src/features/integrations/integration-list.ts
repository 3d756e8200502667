// A site's integrations as the API shows them: credentials only ever masked.
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { IntegrationsTable } from '../../store/tables.ts';

export const toIntegrationRecord = (r: IntegrationsTable) => ({
  id: r.id, site_id: r.site_id, provider: r.provider, config: JSON.parse(r.config_masked) as Record<string, string>, created_at: iso(r.created_at), updated_at: iso(r.updated_at),
});

export async function listIntegrations({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('integrations').selectAll().where('site_id', '=', site.id).orderBy('provider').execute();
  return { integrations: rows.map(toIntegrationRecord) };
}
