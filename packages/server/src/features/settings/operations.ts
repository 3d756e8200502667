// Org settings: the duck facts toggle (spec, Errors rule 6) and who must sign in with two factors.
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../domain/operation.ts';
import { IsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';
import { REQUIRE_2FA } from '../../domain/mfa-policy.ts';
import { getSettings, updateSettings } from './service.ts';

const Require2fa = OneOf(REQUIRE_2FA, "Who must sign in with two factors: 'off', 'admins' (roles admin and owner) or 'everyone'. A covered user without 2FA may only enrol until they do");
const SettingsRecord = Type.Object({ org_id: Uuid, duck_facts: Type.Boolean(), require_2fa: Require2fa, updated_at: IsoTime });
const UpdateSettingsBody = Type.Object({ duck_facts: Type.Optional(Type.Boolean()), require_2fa: Type.Optional(Require2fa) }, { additionalProperties: false, minProperties: 1 });

export const getSettingsOp = defineOperation({
  name: 'settings.get',
  summary: 'Org settings',
  access: { scopes: ['manage:write'], role: 'viewer' },
  http: { method: 'GET', path: '/manage/settings', surface: 'manage', tags: ['settings'] },
  input: {},
  output: SettingsRecord,
  run: (ctx) => getSettings({ ctx }),
});

export const updateSettingsOp = defineOperation({
  name: 'settings.update',
  summary: 'Change org settings',
  access: { scopes: ['manage:write'], role: 'admin' },
  http: { method: 'PATCH', path: '/manage/settings', surface: 'manage', tags: ['settings'] },
  input: { body: UpdateSettingsBody },
  output: SettingsRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateSettings({ ctx, input }),
});

export const SETTINGS_OPERATIONS = [getSettingsOp, updateSettingsOp];
