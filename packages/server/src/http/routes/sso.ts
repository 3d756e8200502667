// Single sign-on: the org admin's connection (GET, PUT, DELETE /v1/manage/sso) and the browser's
// sign-in (GET /v1/auth/sso/start, then the provider, then GET /v1/auth/sso/callback). The two
// sign-in routes are navigations, not API calls: they answer 302, to the provider or to the
// dashboard, and a failure goes back to the sign-in screen as `/app/#/sign-in?sso_error=<code>`
// (the screen shows a plain message) rather than as JSON the person would have to read.
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../app-types.ts';
import { contextOf, publicContextOf } from '../context.ts';
import { Envelope, ok } from '../envelope.ts';
import { setSessionCookie } from '../session-cookie.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { PutSsoBody, SsoCallbackQuery, SsoConnectionRecord, SsoStartQuery } from '../../features/sso/schemas.ts';
import { deleteConnection, finishSso, getConnection, putConnection, SSO_LOGIN_TTL_MS, SsoFailure, startSso } from '../../features/sso/service.ts';

// Keys never manage sign-in: a leaked API key cannot point the org's sign-in at another provider.
const manage = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, orgScope: true, role: 'admin' } as const;

/**
 * The state of a started sign-in, in the browser that started it. SameSite=Lax: the provider
 * sends the person back with a cross-site top-level GET, which a Strict cookie would miss;
 * HttpOnly, and only ever sent to the two sign-in routes.
 */
export const STATE_COOKIE = 'mallard_sso_state';
const STATE_COOKIE_PATH = '/v1/auth/sso';

const Redirect = Type.Null({ description: 'A redirect: to the provider, to the dashboard, or to its sign-in screen with `sso_error` (see the Location header)' });

export async function ssoRoutes(app: App) {
  const { secrets, limiter, config, targets: policy } = app.services;
  const secure = config.publicUrl.startsWith('https:');
  const signInError = (reply: FastifyReply, failure: SsoFailure) =>
    reply.redirect(`/app/#/sign-in?${new URLSearchParams({ sso_error: failure.code })}`, 302);

  app.get('/manage/sso', {
    config: { access: manage, docs: { errors: ['sso_not_configured'] } },
    schema: { tags: ['sso'], summary: 'The org\'s single sign-on connection (never its client secret)', response: { 200: Envelope(SsoConnectionRecord) } },
  }, async (request) => ok(await getConnection({ ctx: contextOf(request), config })));

  app.put('/manage/sso', {
    config: { access: manage, docs: { errors: ['sso_discovery_failed', 'conflict'] } },
    schema: {
      tags: ['sso'], summary: 'Connect the org\'s OpenID Connect provider, or change the connection (the issuer\'s discovery document is read first)',
      body: PutSsoBody, response: { 200: Envelope(SsoConnectionRecord) },
    },
  }, async (request) => ok(await putConnection({ ctx: contextOf(request), input: request.body, secrets, policy, config })));

  app.delete('/manage/sso', {
    config: { access: { ...manage, bodyRequired: false }, docs: { errors: ['sso_not_configured'] } },
    schema: { tags: ['sso'], summary: 'Remove the org\'s single sign-on connection (members sign in with passwords again)', response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await deleteConnection({ ctx: contextOf(request) })));

  app.get('/auth/sso/start', {
    config: { access: { surface: 'auth' }, docs: { errors: ['invalid_uuid'] } },
    schema: {
      tags: ['sso'], summary: 'Start a single sign-on: 302 to the org\'s provider (found from the address), or back to the sign-in screen with sso_error',
      querystring: SsoStartQuery, response: { 302: Redirect },
    },
  }, async (request, reply) => {
    try {
      const started = await startSso({ ctx: publicContextOf(request), input: request.query, secrets, policy, config, limiter });
      reply.setCookie(STATE_COOKIE, started.state, {
        path: STATE_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure, maxAge: Math.floor(SSO_LOGIN_TTL_MS / 1000),
      });
      return reply.redirect(started.location, 302);
    } catch (err) {
      if (err instanceof SsoFailure) return signInError(reply, err);
      throw err;
    }
  });

  app.get('/auth/sso/callback', {
    config: { access: { surface: 'auth' } },
    schema: {
      tags: ['sso'], summary: 'Where the provider sends the person back: signs them in (the dashboard\'s session cookie) and 302 to the dashboard, or to the sign-in screen with sso_error',
      querystring: SsoCallbackQuery, response: { 302: Redirect },
    },
  }, async (request, reply) => {
    const ctx = publicContextOf(request);
    // The state is good for one try, whatever its outcome.
    reply.clearCookie(STATE_COOKIE, { path: STATE_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure });
    try {
      const signedIn = await finishSso({ ctx, query: request.query, cookieState: request.cookies[STATE_COOKIE] ?? null, secrets, policy, config, limiter });
      setSessionCookie(reply, config, signedIn.session.token, signedIn.session.absoluteExpiresAt, ctx.now);
      return reply.redirect(signedIn.returnTo, 302);
    } catch (err) {
      if (err instanceof SsoFailure) {
        request.log.info({ sso_error: err.code }, 'sso: sign-in refused');
        return signInError(reply, err);
      }
      throw err;
    }
  });
}
