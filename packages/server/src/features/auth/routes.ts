// POST /v1/auth/login, /logout and /set-password.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf, publicContextOf } from '../../http/context.ts';
import { LoginBody, LoginResult, SetPasswordBody, UserRef } from './schemas.ts';
import { login, logout, setPassword } from './service.ts';

export async function authRoutes(app: App) {
  const { secrets, limiter } = app.services;

  app.post('/auth/login', {
    config: { access: { surface: 'auth' }, docs: { errors: ['invalid_credentials', 'invalid_uuid', 'rate_limited', 'account_locked'] } },
    schema: { tags: ['auth'], summary: 'Log in and get a user token (JWT)', body: LoginBody, response: { 200: Envelope(LoginResult) } },
  }, async (request) => ok(await login({ ctx: publicContextOf(request), input: request.body, secrets, limiter, ip: request.ip })));

  app.post('/auth/logout', {
    config: { access: { surface: 'auth', jwtOnly: true, bodyRequired: false } },
    schema: { tags: ['auth'], summary: 'Revoke the calling user token', response: { 200: Envelope(Type.Object({ revoked: Type.Boolean() })) } },
  }, async (request) => ok(await logout({ ctx: contextOf(request) })));

  app.post('/auth/set-password', {
    config: { access: { surface: 'auth' } },
    schema: { tags: ['auth'], summary: 'Set a password with an invitation or reset token', body: SetPasswordBody, response: { 200: Envelope(Type.Object({ user: UserRef })) } },
  }, async (request) => ok(await setPassword({ ctx: publicContextOf(request), input: request.body, secrets })));
}
