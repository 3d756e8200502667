// A site's webhooks as the API shows them: never with their secrets.
import { iso, isoOrNull } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { WebhooksTable } from '../../store/tables.ts';

export const toWebhookRecord = (w: WebhooksTable) => ({
  id: w.id, site_id: w.site_id, url: w.url, events: JSON.parse(w.events) as string[], enabled: w.enabled === 1,
  created_at: iso(w.created_at), updated_at: iso(w.updated_at),
  // Until then deliveries are also signed with the secret a rotation replaced.
  rotation_ends_at: w.previous_secret_enc ? isoOrNull(w.previous_secret_expires_at) : null,
});

export async function listWebhooks({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('webhooks').selectAll().where('site_id', '=', site.id).orderBy('created_at').orderBy('id').execute();
  return { webhooks: rows.map(toWebhookRecord) };
}
