// Org settings: the duck facts toggle (spec, Errors rule 6) and who must sign in with two factors.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { IsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';
import { REQUIRE_2FA } from '../../domain/mfa-policy.ts';
import { getSettings, updateSettings } from './service.ts';

const Require2fa = OneOf(REQUIRE_2FA, "Who must sign in with two factors: 'off', 'admins' (roles admin and owner) or 'everyone'. A covered user without 2FA may only enrol until they do");
const SettingsRecord = Type.Object({ org_id: Uuid, duck_facts: Type.Boolean(), require_2fa: Require2fa, updated_at: IsoTime });
const UpdateSettingsBody = Type.Object({ duck_facts: Type.Optional(Type.Boolean()), require_2fa: Type.Optional(Require2fa) }, { additionalProperties: false, minProperties: 1 });

export async function settingsRoutes(app: App) {
  app.get('/manage/settings', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: { tags: ['settings'], summary: 'Org settings', response: { 200: Envelope(SettingsRecord) } },
  }, async (request) => ok(await getSettings({ ctx: contextOf(request) })));

  app.patch('/manage/settings', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'admin' } },
    schema: { tags: ['settings'], summary: 'Change org settings', body: UpdateSettingsBody, response: { 200: Envelope(SettingsRecord) } },
  }, async (request) => ok(await updateSettings({ ctx: contextOf(request), input: request.body })));
}
