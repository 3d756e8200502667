// The OIDC relying party: openid-client does discovery, the authorization URL (state, nonce,
// PKCE S256), the code exchange and the ID token's validation (signature, issuer, audience,
// nonce, expiry). Every request it makes to the issuer (discovery, token, JWKS, userinfo) goes
// through `policyFetch`, which applies the outbound target policy webhooks use
// (delivery/targets.ts): the URL is checked after DNS resolution and the connection goes to
// exactly the address checked, so an org admin's issuer URL can never make the server reach a
// private, loopback or metadata address unless MALLARD_ALLOW_PRIVATE_TARGETS=1.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import * as client from 'openid-client';
import { AppError } from '../../domain/errors.ts';
import { checkTarget, type TargetPolicy } from '../../delivery/targets.ts';

/** Discovery documents and JWKS are small; anything larger is not an issuer's. */
const MAX_RESPONSE_BYTES = 512 * 1024;
/** Seconds each request to the issuer may take. */
export const ISSUER_TIMEOUT_S = 10;
export const SCOPES = 'openid email profile';

/** Why a request to the issuer failed, safe to show an admin (never a secret: only the policy's reason or a transport error). */
export class IssuerUnreachable extends Error {}

function bodyOf(body: client.CustomFetchOptions['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new IssuerUnreachable('streamed request bodies are not sent');
}

function headersOf(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** A fetch for openid-client that only reaches what the target policy allows, never following redirects. */
export function policyFetch(policy: TargetPolicy): client.CustomFetch {
  return async (url, options) => {
    let target;
    try {
      target = await checkTarget(url, policy, 'issuer');
    } catch (err) {
      throw new IssuerUnreachable(err instanceof AppError ? String(err.details?.reason ?? err.message) : 'refused');
    }
    const pinned: LookupFunction = (_host, lookupOptions, callback) => process.nextTick(() => {
      if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target.address]);
      else callback(null, target.address.address, target.address.family);
    });
    const body = bodyOf(options.body);
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(target.url, {
        method: options.method,
        lookup: pinned,
        timeout: ISSUER_TIMEOUT_S * 1000,
        signal: options.signal,
        headers: { ...options.headers, 'user-agent': 'Mallard-SSO/1', ...(body ? { 'content-length': String(body.length) } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) { req.destroy(new IssuerUnreachable('response too large')); return; }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304 || options.method === 'HEAD';
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: headersOf(res.headers) }));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new IssuerUnreachable(`timed out after ${ISSUER_TIMEOUT_S} s`)));
      req.on('error', (err) => reject(err instanceof IssuerUnreachable ? err : new IssuerUnreachable(err.message)));
      req.end(body);
    });
  };
}

export interface ProviderSettings { issuer: string; clientId: string; clientSecret: string }

/** A short, secret-free reason for a failed exchange with the issuer. */
export function issuerFailure(err: unknown): string {
  if (err instanceof IssuerUnreachable) return err.message;
  const e = err as { code?: string; message?: string; cause?: unknown };
  if (e?.cause instanceof IssuerUnreachable) return e.cause.message;
  // openid-client's own errors say what was wrong (an issuer that does not match, a claim value)
  // and carry no secret: the code and its message, cut short.
  if (typeof e?.code === 'string' && e.code.startsWith('OAUTH_')) {
    // openid-client wraps oauth4webapi's error, whose message names the claim ("nonce", "iss").
    let inner: { message?: string; cause?: unknown } = e;
    for (let depth = 0; depth < 3 && inner.cause instanceof Error; depth++) inner = inner.cause;
    return `${e.code.toLowerCase()}: ${String(inner.message ?? e.message ?? '')}`.slice(0, 200);
  }
  return 'the issuer answered with something other than valid OpenID Connect metadata';
}

/**
 * Reads the issuer's discovery document (through the policy) and returns the client's
 * configuration. Plain http is let through only where the policy lets it (never in production).
 */
export async function discover(settings: ProviderSettings, policy: TargetPolicy): Promise<client.Configuration> {
  let issuer: URL;
  try { issuer = new URL(settings.issuer); } catch { throw new IssuerUnreachable('not a URL'); }
  const insecure = issuer.protocol === 'http:' && !policy.requireHttps;
  return client.discovery(issuer, settings.clientId, undefined, client.ClientSecretBasic(settings.clientSecret), {
    [client.customFetch]: policyFetch(policy),
    timeout: ISSUER_TIMEOUT_S,
    ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
  });
}

export interface Started { url: URL; state: string; nonce: string; codeVerifier: string }

/** A new authorization request: fresh state, nonce and PKCE verifier (S256). */
export async function authorizationRequest(config: client.Configuration, redirectUri: string): Promise<Started> {
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: SCOPES, state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
  });
  return { url, state, nonce, codeVerifier };
}

export interface Identity { subject: string; email: string | null; emailVerified: boolean | null }

/**
 * Exchanges the code (with the PKCE verifier) and validates the ID token against the expected
 * state and nonce; the email comes from the ID token or, when the provider keeps it out of the
 * ID token (as some do for the code flow), from the userinfo endpoint for the same subject.
 */
export async function exchangeCode(
  config: client.Configuration, callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string },
): Promise<Identity> {
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new IssuerUnreachable('no ID token');
  let email = typeof claims.email === 'string' ? claims.email : null;
  let verified = typeof claims.email_verified === 'boolean' ? claims.email_verified : null;
  if (email === null && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    email = typeof info.email === 'string' ? info.email : null;
    verified = typeof info.email_verified === 'boolean' ? info.email_verified : null;
  }
  return { subject: claims.sub, email, emailVerified: verified };
}
