// Single sign-on end to end in Debian's Chromium (playwright-core): a real listening server on
// SQLite and a real OpenID provider (oidc-provider) on 127.0.0.1. The owner connects the provider
// on Settings > Single sign-on (the callback URL shown, the secret never filled back in); an
// invited member then signs in with "Sign in with SSO": the email, the provider's login page, and
// back in the dashboard signed in by the HttpOnly session cookie, the overview loaded. Once SSO
// is required, a member's password sign-in is sent on to the provider. An address no org has
// set up comes back to the sign-in screen with a plain message.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../src/server.ts';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg, type BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { SSO_FAILURE_CODES } from '../src/features/sso/service.ts';
import { SSO_ERROR_CODES } from '../../dashboard/src/lib/sso.ts';
import { testConfig, TEST_SECRET } from './helpers/harness.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startProvider, type TestProvider } from './helpers/oidc-provider.ts';

const chromiumReady = chromiumAvailable('dashboard single sign-on end-to-end suite');
const OWNER = { email: 'owner@sso-e2e.example', password: 'owner-password-1' };
const MEMBER = 'ana@sso-e2e.example';

describe('what the sign-in screen says', () => {
  it('has a sentence for every failure the server sends back', () => {
    expect([...SSO_ERROR_CODES].sort()).toEqual([...SSO_FAILURE_CODES].sort());
  });
});

/** A port free now, so the server's MALLARD_PUBLIC_URL (and the callback registered at the provider) can name it before it listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.skipIf(!chromiumReady)('single sign-on in Chromium against a real server and provider', { timeout: 90_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let idp: TestProvider;
  let org: BootstrapResult;
  let browser: Browser;
  let token: string;
  const errors: string[] = [];

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as { data: any; error: { code: string } | null } };
  }

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    return page;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-sso-e2e-'));
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    // At localhost, another site than the server's 127.0.0.1: the return from the provider is a
    // cross-site navigation, as in production, which the Lax state cookie must survive.
    idp = await startProvider([`${publicUrl}/v1/auth/sso/callback`], 'localhost');
    const config = testConfig({
      databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port, host: '127.0.0.1', publicUrl,
      rateLimits: { query: 100_000, manage: 100_000, ingest: 100_000, guide: 100_000, mcp: 100_000 },
    });
    server = await startServer(config, systemClock, {
      worker: false,
      beforeListen: async (store) => {
        org = await bootstrapOrg(store, new Secrets(TEST_SECRET), { org: 'SSO Org', siteName: 'SSO Shop', siteUrl: 'https://sso-shop.example', ...OWNER }, Date.now());
      },
    });
    expect(server.url).toBe(publicUrl);
    const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
    token = (await login.json() as { data: { token: string } }).data.token;
    // The member is invited and has never set a password: SSO is their only way in.
    const invited = await api('POST', '/manage/members', { email: MEMBER, role: 'member' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the owner connects the provider on Settings > Single sign-on', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('form button[type=submit]');
    await page.locator('nav.tabs').waitFor();
    await page.goto(`${server.url}/app/#/settings/sso`);
    await page.locator('#sso-issuer').waitFor();
    expect(await page.textContent('#sso-callback-url')).toBe(`${server.url}/v1/auth/sso/callback`);
    await page.fill('#sso-issuer', idp.issuer);
    await page.fill('#sso-client-id', IDP_CLIENT_ID);
    await page.fill('#sso-client-secret', IDP_CLIENT_SECRET);
    await page.fill('#sso-domains', 'SSO-E2E.example');
    await page.click('form.stack-form button[type=submit]');
    await page.locator('.state.done', { hasText: 'Single sign-on connected.' }).waitFor();

    const stored = await api('GET', '/manage/sso');
    expect(stored.body.data).toMatchObject({ issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: ['sso-e2e.example'], jit: false, required: false, enabled: true });
    // Reloaded from the API: the secret field is empty (write-only), the rest filled in.
    await page.reload();
    await page.locator('#sso-issuer').waitFor();
    await page.waitForFunction(() => (document.querySelector('#sso-client-id') as HTMLInputElement | null)?.value !== '');
    expect(await page.inputValue('#sso-client-id')).toBe(IDP_CLIENT_ID);
    expect(await page.inputValue('#sso-client-secret')).toBe('');
    expect(await page.content()).not.toContain(IDP_CLIENT_SECRET);
    await page.context().close();
  });

  it('a member signs in with SSO: the provider\'s login page, then the dashboard\'s overview', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/app/`);
    await page.click('#sso-open');
    await page.fill('#sso-email', MEMBER);
    await page.click('form[aria-label="Sign in with single sign-on"] button[type=submit]');
    // The provider's own login page.
    await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/interaction/`));
    await page.fill('input[name=login]', MEMBER);
    await page.fill('input[name=password]', 'anything');
    await page.click('button[type=submit]');
    // Back in the dashboard, signed in, the overview loaded.
    await page.waitForURL((url) => url.href.startsWith(`${server.url}/app/`));
    await page.locator('nav.tabs').waitFor();
    await page.locator('.screen.overview').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
    expect(await page.locator('.state.error').count()).toBe(0);
    // Every cookie the browser keeps for the sign-in routes (the session's path, /v1, included).
    const cookies = await page.context().cookies(`${server.url}/v1/auth/sso/callback`);
    const session = cookies.find((c) => c.name === 'mallard_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/v1' });
    expect(cookies.find((c) => c.name === 'mallard_sso_state')).toBeUndefined();
    expect(await page.evaluate(() => document.cookie)).not.toContain('mallard_session');
    // The API agrees who this is.
    const who = await page.evaluate(async () => (await (await fetch('/v1/query/whoami', { cache: 'no-store' })).json()) as { data: { user: { email: string } } });
    expect(who.data.user.email).toBe(MEMBER);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('once SSO is required, a member\'s password sign-in goes on to the provider instead', async () => {
    const email = 'bo@sso-e2e.example';
    const invited = await api('POST', '/manage/members', { email, role: 'viewer' });
    const set = await fetch(`${server.url}/v1/auth/set-password`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invited.body.data.invitation.token, password: 'bo-password-123' }),
    });
    expect(set.status).toBe(200);
    const required = await api('PUT', '/manage/sso', { issuer: idp.issuer, client_id: IDP_CLIENT_ID, email_domains: ['sso-e2e.example'], required: true });
    expect(required.status, JSON.stringify(required.body)).toBe(200);

    const page = await newPage();
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', email);
    await page.fill('#password', 'bo-password-123');
    await page.click('form button[type=submit]');
    await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/interaction/`));
    await page.fill('input[name=login]', email);
    await page.fill('input[name=password]', 'anything');
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.href.startsWith(`${server.url}/app/`));
    await page.locator('.screen.overview').waitFor();
    const who = await page.evaluate(async () => (await (await fetch('/v1/query/whoami', { cache: 'no-store' })).json()) as { data: { user: { email: string } } });
    expect(who.data.user.email).toBe(email);
    await page.context().close();
  });

  it('an address no org has set up comes back to the sign-in screen with a plain message', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/app/`);
    await page.click('#sso-open');
    await page.fill('#sso-email', 'someone@unclaimed.example');
    await page.click('form[aria-label="Sign in with single sign-on"] button[type=submit]');
    await page.locator('#sso-error').waitFor();
    expect(await page.textContent('#sso-error')).toContain('Single sign-on is not set up for that address');
    expect(page.url()).toBe(`${server.url}/app/#/sign-in?sso_error=sso_not_configured`);
    await page.context().close();
  });
});
