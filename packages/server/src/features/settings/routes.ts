// Org settings: the duck facts toggle (spec, Errors rule 6).
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { iso } from '../../clock.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { IsoTime, Uuid } from '../../domain/schema-parts.ts';
import type { Store } from '../../store/db.ts';

const SettingsRecord = Type.Object({ org_id: Uuid, duck_facts: Type.Boolean(), updated_at: IsoTime });
const UpdateSettingsBody = Type.Object({ duck_facts: Type.Optional(Type.Boolean()) }, { additionalProperties: false, minProperties: 1 });

async function readSettings(store: Store, orgId: string) {
  const row = await store.db.selectFrom('org_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  return { org_id: orgId, duck_facts: row?.duck_facts === 1, updated_at: iso(row?.updated_at ?? 0) };
}

export async function settingsRoutes(app: App) {
  const { store, clock } = app.services;

  app.get('/manage/settings', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: { tags: ['settings'], summary: 'Org settings', response: { 200: Envelope(SettingsRecord) } },
  }, async (request) => ok(await readSettings(store, request.auth!.org.id)));

  app.patch('/manage/settings', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'admin' } },
    schema: { tags: ['settings'], summary: 'Change org settings', body: UpdateSettingsBody, response: { 200: Envelope(SettingsRecord) } },
  }, async (request) => {
    const auth = request.auth!;
    const now = clock.now();
    await store.db.transaction().execute(async (trx) => {
      const duck = request.body.duck_facts ? 1 : 0;
      await trx.insertInto('org_settings').values({ org_id: auth.org.id, duck_facts: duck, updated_at: now })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ duck_facts: duck, updated_at: now })).execute();
      await recordAudit(trx, auth, { action: 'settings.updated', targetType: 'org', targetId: auth.org.id, details: request.body }, now);
    });
    return ok(await readSettings(store, auth.org.id));
  });
}
