// The site's most recently active sessions whose id starts with a prefix: completion of
// session ids for an assistant.
import type { ServiceContext } from '../../domain/context.ts';
import { resolveSite } from '../../domain/tenancy.ts';

export async function recentSessionIds({ ctx, input }: { ctx: ServiceContext; input: { site_id?: string; prefix: string; limit: number } }): Promise<string[]> {
  const site = await resolveSite(ctx, input.site_id);
  const prefix = input.prefix.toLowerCase();
  // Session ids are hex: anything else matches nothing (and never reaches LIKE as a pattern).
  if (!/^[0-9a-f]{0,32}$/.test(prefix)) return [];
  const rows = await ctx.db.selectFrom('sessions').select('sid').where('site_id', '=', site.id).where('sid', 'like', `${prefix}%`)
    .orderBy('last_seen_at', 'desc').limit(input.limit).execute();
  return rows.map((r) => r.sid);
}
