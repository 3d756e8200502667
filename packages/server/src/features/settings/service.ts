// Org settings: the duck facts toggle (spec, Errors rule 6). They belong to the caller's org.
import type { Kysely } from 'kysely';
import { recordAudit } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import type { Database } from '../../store/tables.ts';
import { forgetCredentials } from '../../domain/authenticate.ts';

export type UpdateSettingsInput = { duck_facts?: boolean };

async function orgSettings(db: Kysely<Database>, orgId: string) {
  const row = await db.selectFrom('org_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  return { org_id: orgId, duck_facts: row?.duck_facts === 1, updated_at: iso(row?.updated_at ?? 0) };
}

export async function getSettings({ ctx }: { ctx: ServiceContext }) {
  return orgSettings(ctx.db, ctx.auth.org.id);
}

export async function updateSettings({ ctx, input }: { ctx: ServiceContext; input: UpdateSettingsInput }) {
  const { auth, now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    const duck = input.duck_facts ? 1 : 0;
    await trx.insertInto('org_settings').values({ org_id: auth.org.id, duck_facts: duck, updated_at: now })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ duck_facts: duck, updated_at: now })).execute();
    await recordAudit(trx, ctx, { action: 'settings.updated', targetType: 'org', targetId: auth.org.id, details: input });
  });
  forgetCredentials(ctx.db); // keys carry their org's settings
  return orgSettings(ctx.db, auth.org.id);
}
