// Org settings: the duck facts toggle (spec, Errors rule 6) and the org's two-factor policy
// (require_2fa, domain/mfa-policy.ts). They belong to the caller's org; a PATCH changes only the
// fields it names.
import type { Kysely } from 'kysely';
import { recordAudit } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import type { Database } from '../../store/tables.ts';
import { forgetCredentials } from '../../domain/authenticate.ts';
import { require2faOf, type Require2fa } from '../../domain/mfa-policy.ts';

/** require_2fa is one of REQUIRE_2FA (the route's schema checks it). */
export type UpdateSettingsInput = { duck_facts?: boolean; require_2fa?: string };

async function orgSettings(db: Kysely<Database>, orgId: string) {
  const row = await db.selectFrom('org_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  return { org_id: orgId, duck_facts: row?.duck_facts === 1, require_2fa: require2faOf(row?.require_2fa), updated_at: iso(row?.updated_at ?? 0) };
}

export async function getSettings({ ctx }: { ctx: ServiceContext }) {
  return orgSettings(ctx.db, ctx.auth.org.id);
}

export async function updateSettings({ ctx, input }: { ctx: ServiceContext; input: UpdateSettingsInput }) {
  const { auth, now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('org_settings').selectAll().where('org_id', '=', auth.org.id).executeTakeFirst();
    const duck = input.duck_facts === undefined ? (current?.duck_facts ?? 0) : (input.duck_facts ? 1 : 0);
    const require2fa: Require2fa = require2faOf(input.require_2fa ?? current?.require_2fa);
    await trx.insertInto('org_settings').values({ org_id: auth.org.id, duck_facts: duck, require_2fa: require2fa, updated_at: now })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ duck_facts: duck, require_2fa: require2fa, updated_at: now })).execute();
    await recordAudit(trx, ctx, { action: 'settings.updated', targetType: 'org', targetId: auth.org.id, details: input });
  });
  forgetCredentials(ctx.db); // keys carry their org's settings
  return orgSettings(ctx.db, auth.org.id);
}
