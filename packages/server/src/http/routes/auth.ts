// POST /v1/auth/login, /logout, /set-password and /change-password, and the dashboard's
// session: POST, GET and DELETE /v1/auth/session (a cookie instead of a bearer JWT).
import { Type } from '@sinclair/typebox';
import { SESSION_COOKIE } from '../../auth/session-tokens.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import type { FastifyReply } from 'fastify';
import type { ServiceContext } from '../../domain/context.ts';
import type { App } from '../app-types.ts';
import { Envelope, ok } from '../envelope.ts';
import { contextOf, publicContextOf } from '../context.ts';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.ts';
import { ChangePasswordBody, LoginBody, LoginResult, SessionBody, SessionResult, SetPasswordBody, UserRef } from '../../features/auth/schemas.ts';
import { changePassword, login, logout, setPassword } from '../../features/auth/service.ts';
import { createWebSession, endSession, sessionOfCookie, sessionView, startSession } from '../../features/auth/web-session.ts';

const LOGIN_ERRORS: ErrorCode[] = ['invalid_credentials', 'invalid_uuid', 'rate_limited', 'account_locked', 'mfa_required', 'invalid_otp', 'sso_required'];

export async function authRoutes(app: App) {
  const { secrets, limiter, config, store } = app.services;

  /** Ends the caller's sign-in: the session cookie's session (and the cookie), or the bearer JWT. */
  const signOut = async (ctx: ServiceContext, reply: FastifyReply) => {
    if (!ctx.auth.sessionId) return logout({ ctx });
    clearSessionCookie(reply, config);
    return endSession(ctx);
  };

  app.post('/auth/login', {
    config: { access: { surface: 'auth' }, docs: { errors: LOGIN_ERRORS } },
    schema: { tags: ['auth'], summary: 'Log in and get a user token (JWT)', body: LoginBody, response: { 200: Envelope(LoginResult) } },
  }, async (request) => ok(await login({ ctx: publicContextOf(request), input: request.body, secrets, limiter, ip: request.ip })));

  app.post('/auth/logout', {
    config: { access: { surface: 'auth', jwtOnly: true, bodyRequired: false, duringMfaEnrolment: true } },
    schema: { tags: ['auth'], summary: 'Revoke the calling user token (or end the dashboard session signed in by cookie)', response: { 200: Envelope(Type.Object({ revoked: Type.Boolean() })) } },
  }, async (request, reply) => ok(await signOut(contextOf(request), reply)));

  app.post('/auth/set-password', {
    config: { access: { surface: 'auth' } },
    schema: { tags: ['auth'], summary: 'Set a password with an invitation or reset token', body: SetPasswordBody, response: { 200: Envelope(Type.Object({ user: UserRef })) } },
  }, async (request) => ok(await setPassword({ ctx: publicContextOf(request), input: request.body, secrets })));

  app.post('/auth/change-password', {
    config: { access: { surface: 'auth', jwtOnly: true }, docs: { errors: ['account_locked'] } },
    schema: {
      tags: ['auth'],
      summary: 'Change your own password: every other dashboard session and every earlier user token ends',
      body: ChangePasswordBody,
      response: { 200: Envelope(Type.Object({ user: UserRef, ended_sessions: Type.Integer(), session: Type.Union([SessionResult, Type.Null()]) })) },
    },
  }, async (request, reply) => {
    const ctx = contextOf(request);
    const changed = await changePassword({ ctx, input: request.body, limiter });
    if (!ctx.auth.sessionId) return ok({ ...changed, session: null });
    // The browser that changed the password stays signed in, on a new session.
    const session = await createWebSession(ctx, secrets, { userId: changed.user.id, orgId: ctx.auth.org.id, method: 'password' });
    setSessionCookie(reply, config, session.token, session.absoluteExpiresAt, ctx.now);
    return ok({ ...changed, session: sessionView({ user: changed.user, org: { id: ctx.auth.org.id, name: ctx.auth.org.name }, role: ctx.auth.role! }, session) });
  });

  app.post('/auth/session', {
    config: { access: { surface: 'auth' }, docs: { errors: LOGIN_ERRORS } },
    schema: {
      tags: ['auth'],
      summary: 'Sign in to the dashboard: sets the HttpOnly session cookie and answers the CSRF token for writes',
      body: SessionBody,
      response: { 200: Envelope(SessionResult) },
    },
  }, async (request, reply) => {
    const ctx = publicContextOf(request);
    const { session, view } = await startSession({ ctx, input: request.body, secrets, limiter, ip: request.ip });
    setSessionCookie(reply, config, session.token, session.absoluteExpiresAt, ctx.now);
    return ok(view);
  });

  app.get('/auth/session', {
    config: { access: { surface: 'auth' } },
    schema: {
      tags: ['auth'],
      summary: 'This browser\'s dashboard session (from its cookie) with its CSRF token, or null when signed out',
      response: { 200: Envelope(Type.Union([SessionResult, Type.Null()])) },
    },
  }, async (request) => ok(await sessionOfCookie(publicContextOf(request), store, secrets, request.cookies[SESSION_COOKIE] ?? null)));

  app.delete('/auth/session', {
    config: { access: { surface: 'auth', jwtOnly: true, bodyRequired: false, duringMfaEnrolment: true } },
    schema: { tags: ['auth'], summary: 'Sign out: ends the session cookie\'s session and clears the cookie (a bearer user token is revoked, as by /auth/logout)', response: { 200: Envelope(Type.Object({ revoked: Type.Boolean() })) } },
  }, async (request, reply) => ok(await signOut(contextOf(request), reply)));
}
