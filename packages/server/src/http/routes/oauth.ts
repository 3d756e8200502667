// OAuth for the MCP endpoint over HTTP. Two plugins:
// - oauthServerRoutes (at the root): the protected resource's metadata (RFC 9728), and the
//   authorization server's endpoints, answered by oidc-provider itself (features/oauth/provider.ts). These
//   speak OAuth's own formats (metadata documents, `{error, error_description}`), not the API
//   envelope: OAuth clients read them.
// - oauthConsentRoutes (under /v1): the consent screen's calls (the dashboard at
//   /app/#/oauth/consent) and the connections listed and revoked in settings.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app-types.ts';
import { contextOf } from '../context.ts';
import { Envelope, ok } from '../envelope.ts';
import { AppError } from '../../domain/errors.ts';
import { enforceOAuthRegistrationLimit } from '../../domain/rate-limits.ts';
import { Deleted, OpenRecord } from '../../domain/schema-parts.ts';
import { INTERACTION_PATH, MCP_SCOPE, OAUTH_PATHS, type OAuthServer } from '../../features/oauth/provider.ts';
import { ApproveBody, ConnectionList, ConnectionParams, ConsentDetails, InteractionOutcome, InteractionParams } from '../../features/oauth/schemas.ts';
import { approveConsent, consentDetails, denyConsent, listConnections, revokeConnection, type Interaction } from '../../features/oauth/service.ts';

/** Where the dashboard shows the consent screen for an interaction. */
export const consentScreen = (uid: string) => `/app/#/oauth/consent?${new URLSearchParams({ uid })}`;

const PRM_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v1/mcp'];

export const ResourceMetadata = Type.Object({
  resource: Type.String({ description: 'The MCP endpoint: the resource every token is for (RFC 8707)' }),
  authorization_servers: Type.Array(Type.String(), { description: 'Mallard itself: its issuer is MALLARD_PUBLIC_URL' }),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  resource_name: Type.String(),
  resource_documentation: Type.String(),
});

const Json = (description: string) => ({ description, content: { 'application/json': { schema: OpenRecord('As the RFC cited in the summary defines it') } } });
const Redirect = (description: string) => Type.Null({ description });
/** The statuses at which the provider answers with OAuth's own error object (RFC 6749 5.2) instead of the envelope. */
const CLIENT_ERRORS = { 400: 'invalid_request, invalid_grant (a wrong code verifier, a used or revoked refresh token), invalid_redirect_uri, invalid_client_metadata, ...', 401: 'invalid_client' };
/** An authorization request that cannot go back to the client answers a plain page (text/html). */
const ERROR_PAGE = { 400: 'The request cannot go back to the client (an unknown client or redirect URI, a missing or expired sign-in): a plain page saying so' };

export async function oauthServerRoutes(app: App, { server }: { server: OAuthServer }) {
  const { issuer, resource } = server;
  const publicUrl = new URL(issuer);
  const handle = server.provider.callback();
  const access = { surface: 'public', bodyRequired: false } as const;

  // The provider reads its own bodies (form or JSON, at most 56 KB): here they are left unread.
  app.removeContentTypeParser('application/json');
  for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
    app.addContentTypeParser(type, (_request, _payload, done) => done(null, undefined));
  }

  /** Hands the request to oidc-provider as it came, as if addressed to the public URL. */
  const passThrough = async (request: FastifyRequest, reply: FastifyReply, path?: string) => {
    const raw = request.raw;
    if (path) raw.url = path + (raw.url?.includes('?') ? raw.url.slice(raw.url.indexOf('?')) : '');
    // The provider builds its endpoints' URLs and decides on Secure cookies from the request's
    // host and scheme: those of the issuer, whatever proxy sits in front.
    raw.headers.host = publicUrl.host;
    raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    delete raw.headers['x-forwarded-host'];
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    await handle(raw, reply.raw);
  };

  for (const url of PRM_PATHS) {
    app.get(url, {
      config: { access },
      schema: {
        tags: ['oauth'], summary: 'The MCP endpoint\'s protected-resource metadata (RFC 9728): where to get a token for it',
        response: { 200: ResourceMetadata },
      },
    }, async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return {
        resource, authorization_servers: [issuer], scopes_supported: [MCP_SCOPE], bearer_methods_supported: ['header'],
        resource_name: 'Mallard', resource_documentation: `${issuer}/docs`,
      };
    });
  }

  app.get('/.well-known/oauth-authorization-server', {
    config: { access },
    schema: { tags: ['oauth'], summary: 'Authorization server metadata (RFC 8414): endpoints, PKCE S256, grant types', response: { 200: Json('The metadata document') } },
  }, (request, reply) => passThrough(request, reply, '/.well-known/openid-configuration'));
  app.get('/.well-known/openid-configuration', {
    config: { access },
    schema: { tags: ['oauth'], summary: 'The same metadata at OpenID Connect\'s discovery address, for clients that look there', response: { 200: Json('The metadata document') } },
  }, (request, reply) => passThrough(request, reply));

  app.get(OAUTH_PATHS.authorization, {
    config: { access, docs: { oauthErrors: ERROR_PAGE } },
    schema: {
      tags: ['oauth'], summary: 'Authorization endpoint (OAuth 2.1: code flow, PKCE S256 required): sends the browser to sign in and consent in the dashboard',
      querystring: Type.Object({}, { additionalProperties: true }),
      response: { 302: Redirect('To the consent screen, or back to the client\'s redirect URI with a code or an error. An unknown client or redirect URI gets an error page, never a redirect') },
    },
  }, (request, reply) => passThrough(request, reply));
  app.get(`${OAUTH_PATHS.authorization}/:uid`, {
    config: { access, docs: { oauthErrors: ERROR_PAGE } },
    schema: {
      tags: ['oauth'], summary: 'Where the browser resumes after consent: back to the client with the code',
      params: InteractionParams, response: { 302: Redirect('To the client\'s redirect URI with a code, or with error=access_denied') },
    },
  }, (request, reply) => passThrough(request, reply));
  app.post(OAUTH_PATHS.token, {
    config: { access, docs: { consumes: ['application/x-www-form-urlencoded'], oauthErrors: CLIENT_ERRORS } },
    schema: { tags: ['oauth'], summary: 'Token endpoint (RFC 6749): a code with its PKCE verifier, or a refresh token (rotated), for an access token', response: { 200: Json('access_token, token_type, expires_in, refresh_token, scope') } },
  }, (request, reply) => passThrough(request, reply));
  app.post(OAUTH_PATHS.registration, {
    config: { access, docs: { oauthErrors: { 400: CLIENT_ERRORS[400] }, errors: ['rate_limited'] } },
    schema: { tags: ['oauth'], summary: 'Dynamic client registration (RFC 7591): redirect_uris, client_name, token_endpoint_auth_method; 30 an hour per client address', response: { 201: Json('The registered client, with its client_id') } },
  }, async (request, reply) => {
    await enforceOAuthRegistrationLimit(request.server.services.limiter, request.ip, request.server.services.clock.now());
    return passThrough(request, reply);
  });
  app.post(OAUTH_PATHS.revocation, {
    config: { access, docs: { consumes: ['application/x-www-form-urlencoded'], oauthErrors: CLIENT_ERRORS } },
    schema: { tags: ['oauth'], summary: 'Token revocation (RFC 7009): revoking a refresh token ends its whole grant', response: { 200: Json('Empty: revoked, or never known') } },
  }, (request, reply) => passThrough(request, reply));
  app.get(OAUTH_PATHS.jwks, {
    config: { access },
    schema: { tags: ['oauth'], summary: 'The authorization server\'s public signing keys (JWKS)', response: { 200: Json('A JSON Web Key Set') } },
  }, (request, reply) => passThrough(request, reply));
}

export async function oauthConsentRoutes(app: App, { server }: { server: OAuthServer }) {
  const signedIn = { surface: 'auth', jwtOnly: true } as const;
  const interactionPath = INTERACTION_PATH.replace(/^\/v1/, '');

  /**
   * The interaction this browser started: oidc-provider keeps its id in a signed cookie scoped
   * to the interaction's path, so a link to someone else's sign-in approves nothing.
   */
  const interactionOf = async (request: FastifyRequest, reply: FastifyReply): Promise<Interaction> => {
    let interaction: Interaction | null = null;
    try {
      interaction = await server.provider.interactionDetails(request.raw, reply.raw);
    } catch {
      // No cookie, an expired interaction, or a session that changed: the same answer below.
    }
    if (!interaction || interaction.uid !== (request.params as { uid: string }).uid) {
      throw new AppError('invalid_input', 'This sign-in request has expired or was started in another browser; start again from the application', { field: 'uid', reason: 'expired or not started in this browser' });
    }
    return interaction;
  };

  app.get(`${interactionPath}/:uid`, {
    config: { access: { surface: 'auth' } },
    schema: {
      tags: ['oauth'], summary: 'Where the authorization server sends the browser: 302 to the dashboard\'s consent screen (which asks to sign in first)',
      params: InteractionParams, response: { 302: Redirect('To /app/#/oauth/consent?uid=...') },
    },
  }, async (request, reply) => reply.redirect(consentScreen(request.params.uid), 302));

  app.get(`${interactionPath}/:uid/details`, {
    config: { access: signedIn, docs: { errors: ['not_found'] } },
    schema: {
      tags: ['oauth'], summary: 'What the consent screen shows: the application (its name and redirect URI) and the signed-in person\'s orgs and sites',
      description: 'Needs the interaction cookie the authorization server set in this browser: from another browser, or once expired (10 minutes), 400 invalid_input.',
      params: InteractionParams, response: { 200: Envelope(ConsentDetails) },
    },
  }, async (request, reply) => ok(await consentDetails({ ctx: contextOf(request), server, interaction: await interactionOf(request, reply) })));

  app.post(`${interactionPath}/:uid/approve`, {
    config: { access: signedIn, docs: { errors: ['not_found', 'insufficient_role'] } },
    schema: {
      tags: ['oauth'], summary: 'Approve: the application may use the MCP endpoint as you, in the org, on one site or all, read or read-and-write',
      description: 'Answers where the browser goes next (the authorization server, which sends it back to the application with a code). Needs the interaction cookie (400 invalid_input otherwise); read and write needs the role member or higher in the chosen org.',
      params: InteractionParams, body: ApproveBody, response: { 200: Envelope(InteractionOutcome) },
    },
  }, async (request, reply) => {
    const result = await approveConsent({ ctx: contextOf(request), server, interaction: () => interactionOf(request, reply), input: request.body });
    return ok({ redirect_to: await server.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false }) });
  });

  app.post(`${interactionPath}/:uid/deny`, {
    config: { access: { ...signedIn, bodyRequired: false } },
    schema: {
      tags: ['oauth'], summary: 'Deny: the application is sent back with error=access_denied',
      params: InteractionParams, response: { 200: Envelope(InteractionOutcome) },
    },
  }, async (request, reply) => {
    const ctx = contextOf(request);
    await interactionOf(request, reply);
    return ok({ redirect_to: await server.provider.interactionResult(request.raw, reply.raw, denyConsent({ ctx }), { mergeWithLastSubmission: false }) });
  });

  app.get('/auth/oauth/connections', {
    config: { access: signedIn },
    schema: { tags: ['oauth'], summary: 'Your connected OAuth applications in this org: name, site scope, access, created and last used', response: { 200: Envelope(ConnectionList) } },
  }, async (request) => ok(await listConnections({ ctx: contextOf(request), input: { scope: 'mine' } })));

  app.delete('/auth/oauth/connections/:id', {
    config: { access: { ...signedIn, bodyRequired: false } },
    schema: { tags: ['oauth'], summary: 'Revoke one of your connected applications: its access and refresh tokens stop at once', params: ConnectionParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await revokeConnection({ ctx: contextOf(request), input: { id: request.params.id, scope: 'mine' } })));

  const admin = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;
  app.get('/manage/oauth-connections', {
    config: { access: admin },
    schema: { tags: ['oauth'], summary: 'Every member\'s connected OAuth applications in the org (admins)', response: { 200: Envelope(ConnectionList) } },
  }, async (request) => ok(await listConnections({ ctx: contextOf(request), input: { scope: 'org' } })));

  app.delete('/manage/oauth-connections/:id', {
    config: { access: { ...admin, bodyRequired: false } },
    schema: { tags: ['oauth'], summary: 'Revoke any member\'s connected application (admins): its tokens stop at once', params: ConnectionParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await revokeConnection({ ctx: contextOf(request), input: { id: request.params.id, scope: 'org' } })));
}
