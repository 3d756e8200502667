// A real OpenID provider (oidc-provider, certified) on 127.0.0.1 in the test process, for the
// single sign-on suites: one confidential client whose redirect URI is Mallard's callback,
// dev interactions (a login form that takes any account id, no password check) and consent
// already granted, so a sign-in is the login form and back. The account id is the email
// unless `accounts` says otherwise, so a test controls the address and its verification.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const IDP_CLIENT_ID = 'mallard-test';
export const IDP_CLIENT_SECRET = 'idp-client-secret-5f2c8e0b7d1a4c93';

export interface TestProvider {
  issuer: string;
  /** Claims to give an account instead of `{ email: <account id>, email_verified: true }`. */
  accounts: Map<string, Record<string, unknown>>;
  /** Every request path the provider received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * `host` names the issuer: 127.0.0.1 by default; `localhost` (still loopback, listening on
 * 127.0.0.1) makes the provider another site than a Mallard on 127.0.0.1, as a real provider is,
 * so a browser treats the return to the callback as a cross-site navigation.
 */
export async function startProvider(redirectUris: string[], host: '127.0.0.1' | 'localhost' = '127.0.0.1'): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, Record<string, unknown>>();
  const requests: string[] = [];
  const provider = new Provider(issuer, {
    clients: [{
      client_id: IDP_CLIENT_ID, client_secret: IDP_CLIENT_SECRET, redirect_uris: redirectUris,
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, ...(accounts.get(id) ?? { email: id, email_verified: true }) }) };
    },
    // Consent is taken as given: the suites are about Mallard's side of the exchange.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  // The dev interactions' only complaint is being dev interactions; keep the test output quiet.
  provider.on('server_error', () => undefined);
  const callback = provider.callback();
  server.on('request', (req, res) => {
    requests.push(req.url ?? '');
    void callback(req, res);
  });
  return {
    issuer, accounts, requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Cookies of one site, as a browser would keep them (name=value only; the provider's are all on /). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Signs in at the provider as `account` from its authorization URL: follows its redirects, fills
 * the login form, and returns the URL it finally sends the browser to (Mallard's callback).
 */
export async function loginAtProvider(authorizationUrl: string, account: string, stopAt: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: jar.header() } });
    jar.take(res.headers);
    init = {};
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url).href;
      if (next.startsWith(stopAt)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
    const form = html.includes('name="login"')
      ? new URLSearchParams({ prompt: 'login', login: account, password: 'any' })
      : new URLSearchParams({ prompt: 'consent' });
    url = new URL(action.replaceAll('&amp;', '&'), url).href;
    init = { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('the provider never sent the browser back');
}
