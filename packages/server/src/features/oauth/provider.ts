// Mallard as its own OAuth 2.1 authorization server for the MCP endpoint, on oidc-provider (a
// certified implementation): metadata (RFC 8414), dynamic client registration (RFC 7591), the
// authorization code grant with PKCE S256 only, rotated refresh tokens, revocation (RFC 7009)
// and resource indicators (RFC 8707) bound to <public URL>/v1/mcp. The issuer is
// MALLARD_PUBLIC_URL. Nothing here writes token endpoints by hand: this file only configures.
// The person signs in and consents in the dashboard (interaction.ts); what they choose there
// (org, site, access) lives in oauth_grants, not in the token's scope, which is always `mcp`.
import { createPrivateKey } from 'node:crypto';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Clock } from '../../clock.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { Store } from '../../store/db.ts';
import type { Log } from '../../domain/context.ts';
import { adapterFor } from './adapter.ts';

import { MCP_SCOPE } from '../../domain/authenticate.ts';

export { MCP_SCOPE };
/** Where the endpoints live, under the issuer (the paths oidc-provider answers). */
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize', token: '/oauth/token', registration: '/oauth/register',
  revocation: '/oauth/revoke', jwks: '/oauth/jwks',
} as const;
/** Where the provider sends the browser to sign in and consent (interaction.ts), with the interaction's id. */
export const INTERACTION_PATH = '/v1/auth/oauth/interaction';
/** How long a sign-in and consent may take, and how long a code lives. */
const INTERACTION_TTL_SEC = 10 * 60;
const CODE_TTL_SEC = 60;
/** A connection lasts at most a year from its approval; its refresh tokens slide within that. */
/** A grant (a connection) lasts a year from consent; then its records expire and it must connect again. */
export const GRANT_TTL_SEC = 365 * 86_400;

export interface OAuthServer {
  provider: Provider;
  /** The MCP endpoint's URL: the resource every token is for. */
  resource: string;
  issuer: string;
}

export interface OAuthDeps { config: Config; store: Store; secrets: Secrets; clock: Clock; log: Log }

/**
 * An Ed25519 signing key derived from MALLARD_SECRET (so every API process has the same one and
 * nothing more is stored). Access tokens are opaque; the key signs only what the provider signs
 * on its own account (an ID token, if a client asks for `openid`).
 */
function signingKey(secrets: Secrets) {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), secrets.key('oauth-signing')]);
  return { ...createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }), use: 'sig', alg: 'EdDSA' };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createOAuthServer({ config, store, secrets, clock, log }: OAuthDeps): OAuthServer {
  const issuer = config.publicUrl;
  const resource = `${issuer}/v1/mcp`;
  const accessTokenTTL = config.oauth.accessTokenTtlSec;
  const configuration: Configuration = {
    adapter: adapterFor({ db: store.db, secrets, clock }),
    jwks: { keys: [signingKey(secrets) as never] },
    // Signed with every key of the keyring, so a secret rotation keeps the cookies in flight.
    cookies: { keys: secrets.keys('oauth-cookie').map((key) => key.toString('base64url')) },
    routes: OAUTH_PATHS,
    responseTypes: ['code'],
    pkce: { methods: ['S256'], required: () => true },
    // OAuth 2.1: the redirect URI is always sent, and must match a registered one exactly.
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], id_token_signed_response_alg: 'EdDSA',
    },
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    claims: { openid: ['sub'] },
    // Listed for registration, which checks a client's `scope` against it (the SDK registers
    // with the resource's scopes); granted beside the resource's own scope (service.ts).
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return { scope: MCP_SCOPE, audience: resource, accessTokenTTL, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Every client that may refresh gets a refresh token, rotated at each use: a stolen one that
    // is used after its owner used it ends the whole grant (the provider's reuse detection).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // The provider's browser session lives only as long as a sign-in (10 minutes): tokens must
    // outlive it, or refreshing would stop working once it ends.
    expiresWithSession: () => false,
    ttl: {
      AccessToken: accessTokenTTL, AuthorizationCode: CODE_TTL_SEC, Interaction: INTERACTION_TTL_SEC,
      Session: INTERACTION_TTL_SEC, Grant: GRANT_TTL_SEC, RefreshToken: config.oauth.refreshTokenTtlSec,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    // Each authorization asks again (org, site and access may differ): only the grant the person
    // approved in this very interaction is reused.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // An authorization request that cannot go back to the client (unknown client or redirect
    // URI) is answered with a plain page in the person's browser: the error, nothing of theirs.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.set('content-security-policy', "default-src 'none'");
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Mallard: sign-in refused</title><h1>This application's sign-in request was refused</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p><p>Start again from the application; if it keeps happening, its set-up is wrong.</p>`;
    },
    async findAccount(_ctx, id) {
      const user = await store.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
      return user ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined;
    },
  };
  const provider = new Provider(issuer, configuration);
  // Behind Mallard's own routing the request's host and scheme are set from the public URL
  // (http/routes/oauth.ts), so the provider trusts them.
  provider.proxy = true;
  provider.on('server_error', (_ctx, err) => log.error({ err }, 'oauth server error'));
  return { provider, resource, issuer };
}
