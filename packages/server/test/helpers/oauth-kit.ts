// OAuth for the MCP endpoint, as a remote client meets it: a Mallard listening on 127.0.0.1
// whose public URL is its own address (the issuer and the resource), a person who "visits" the
// authorization URL over HTTP (signs in to the dashboard's API, reads the consent screen's
// details, approves or denies, follows the redirects) and the SDK's OAuthClientProvider.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { DialectName } from './services.ts';
import { createHarness, type Harness, type HarnessOptions } from './harness.ts';
import { CookieJar } from './oidc-provider.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

/** A free port on loopback, so the public URL can be known before the app is built. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A harness listening at its own public URL (wall clock, so the provider's and the app's times agree). */
export async function listeningHarness(dialect: DialectName, options: HarnessOptions = {}): Promise<{ h: Harness; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const h = await createHarness(dialect, { wallClock: true, raisedLimits: true, ...options, config: { publicUrl: base, ...options.config } });
  await h.app.listen({ port, host: '127.0.0.1' });
  return { h, base };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type Choice = { org_id: string; site_id: string | null; access: 'read' | 'write' } | 'deny';

export interface Person { email: string; password: string }

/**
 * A browser that opens the authorization URL: follows redirects until the consent screen, signs
 * in (POST /v1/auth/session), reads the details, approves or denies with the CSRF token, and
 * follows the answer's redirect back to the client. Returns the URL the client is sent to and
 * the details the screen showed.
 */
export async function visitAuthorization(authorizationUrl: string, person: Person, choice: Choice) {
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: jar.header() } });
    jar.take(res.headers);
    return res;
  };
  let url = authorizationUrl;
  let uid: string | null = null;
  for (let step = 0; step < 6 && uid === null; step++) {
    const res = await go(url);
    if (res.status < 300 || res.status >= 400) throw new Error(`the authorization server answered ${res.status} at ${url}: ${(await res.text()).slice(0, 300)}`);
    const next = new URL(res.headers.get('location')!, url);
    if (next.href.startsWith(REDIRECT_URI)) return { redirectedTo: next, details: null };
    // The dashboard's consent screen: its address carries the interaction's id after the #.
    if (next.pathname === '/app/') uid = new URLSearchParams(next.hash.split('?')[1]).get('uid');
    url = next.href;
  }
  if (uid === null) throw new Error('never reached the consent screen');
  const origin = new URL(authorizationUrl).origin;
  const signIn = await go(`${origin}/v1/auth/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(person) });
  if (signIn.status !== 200) throw new Error(`sign-in failed: ${await signIn.text()}`);
  const csrf = ((await signIn.json()) as { data: { csrf_token: string } }).data.csrf_token;
  const detailsRes = await go(`${origin}/v1/auth/oauth/interaction/${uid}/details`);
  const details = (await detailsRes.json()) as { data: ConsentDetails | null; error: { code: string } | null };
  if (detailsRes.status !== 200) throw new Error(`details: ${JSON.stringify(details)}`);
  const decided = await go(`${origin}/v1/auth/oauth/interaction/${uid}/${choice === 'deny' ? 'deny' : 'approve'}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: choice === 'deny' ? undefined : JSON.stringify(choice),
  });
  const outcome = (await decided.json()) as { data: { redirect_to: string } | null; error: { code: string } | null };
  if (decided.status !== 200) return { redirectedTo: null, details: details.data, refused: outcome.error };
  url = outcome.data!.redirect_to;
  for (let step = 0; step < 6; step++) {
    const res = await go(url);
    if (res.status < 300 || res.status >= 400) throw new Error(`the authorization server answered ${res.status} at ${url}: ${(await res.text()).slice(0, 300)}`);
    const next = new URL(res.headers.get('location')!, url);
    if (next.href.startsWith(REDIRECT_URI)) return { redirectedTo: next, details: details.data };
    url = next.href;
  }
  throw new Error('never sent back to the client');
}

export interface ConsentDetails {
  uid: string;
  client: { client_id: string; name: string | null; redirect_uri: string };
  orgs: { id: string; name: string; role: string; may_write: boolean; sites: { id: string; name: string; url: string }[] }[];
  expires_at: string;
}

/**
 * The SDK's OAuthClientProvider, in memory: registers dynamically, and "opens the browser" by
 * visiting the authorization URL as `person` choosing `choice`; the code it is sent back with
 * waits in `code` for the transport's finishAuth.
 */
export class TestOAuthClient implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  code: string | null = null;
  lastRedirect: URL | null = null;
  constructor(private readonly person: Person, public choice: Choice, readonly name = 'Test assistant') {}
  get redirectUrl() { return REDIRECT_URI; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(url: URL) {
    const { redirectedTo } = await visitAuthorization(url.href, this.person, this.choice);
    this.lastRedirect = redirectedTo;
    this.code = redirectedTo?.searchParams.get('code') ?? null;
  }
}
