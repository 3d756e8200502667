// The caller's own two-factor sign-in (GET /v1/auth/2fa, POST setup, enable, disable and
// recovery-codes: user tokens only, any role) and an admin's reset of a member's
// (POST /v1/manage/members/{id}/reset-2fa).
import type { App } from '../app-types.ts';
import { Envelope, ok } from '../envelope.ts';
import { contextOf } from '../context.ts';
import { DisableBody, Disabled, EnableBody, Enabled, RegenerateBody, Regenerated, ResetMember, ResetParams, TwoFactorSetup, TwoFactorStatus } from '../../features/two-factor/schemas.ts';
import { disable, enable, getStatus, regenerateRecoveryCodes, resetMemberMfa, startSetup } from '../../features/two-factor/service.ts';

// A user's own account, by user token only: an API key has no second factor to manage.
const own = { surface: 'auth', jwtOnly: true } as const;
const wrongCode = ['account_locked'] as const;

export async function twoFactorRoutes(app: App) {
  const { secrets, limiter } = app.services;

  app.get('/auth/2fa', {
    config: { access: { ...own, duringMfaEnrolment: true } },
    schema: { tags: ['auth'], summary: 'Whether two-factor sign-in is on for the calling user, and whether their org requires it', response: { 200: Envelope(TwoFactorStatus) } },
  }, async (request) => ok(await getStatus({ ctx: contextOf(request) })));

  app.post('/auth/2fa/setup', {
    config: { access: { ...own, duringMfaEnrolment: true, bodyRequired: false }, docs: { errors: ['conflict'] } },
    schema: {
      tags: ['auth'], summary: 'Start (or restart) two-factor setup: a new authenticator secret, its otpauth URL and QR code, shown only here',
      response: { 200: Envelope(TwoFactorSetup) },
    },
  }, async (request) => ok(await startSetup({ ctx: contextOf(request), secrets })));

  app.post('/auth/2fa/enable', {
    config: { access: { ...own, duringMfaEnrolment: true }, docs: { errors: ['conflict', ...wrongCode] } },
    schema: {
      tags: ['auth'], summary: 'Confirm two-factor setup with a current code; answers ten recovery codes, shown only here',
      body: EnableBody, response: { 200: Envelope(Enabled) },
    },
  }, async (request) => ok(await enable({ ctx: contextOf(request), input: request.body, secrets, limiter })));

  app.post('/auth/2fa/disable', {
    config: { access: own, docs: { errors: ['conflict', 'mfa_required_by_org', ...wrongCode] } },
    schema: {
      tags: ['auth'], summary: 'Turn two-factor sign-in off (password and a code or a recovery code); refused while an org requires it',
      body: DisableBody, response: { 200: Envelope(Disabled) },
    },
  }, async (request) => ok(await disable({ ctx: contextOf(request), input: request.body, secrets, limiter })));

  app.post('/auth/2fa/recovery-codes', {
    config: { access: own, docs: { errors: ['conflict', ...wrongCode] } },
    schema: {
      tags: ['auth'], summary: 'Replace the recovery codes (a code or a recovery code); answers ten new ones, shown only here',
      body: RegenerateBody, response: { 200: Envelope(Regenerated) },
    },
  }, async (request) => ok(await regenerateRecoveryCodes({ ctx: contextOf(request), input: request.body, secrets, limiter })));

  app.post('/manage/members/:id/reset-2fa', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, orgScope: true, role: 'admin', bodyRequired: false } },
    schema: {
      tags: ['members'], summary: 'Clear a member\'s two-factor sign-in (a lost device); only an owner resets an owner\'s',
      params: ResetParams, response: { 200: Envelope(ResetMember) },
    },
  }, async (request) => ok(await resetMemberMfa({ ctx: contextOf(request), input: request.params })));
}
