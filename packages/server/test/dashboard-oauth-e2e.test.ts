// The OAuth consent screen end to end in Debian's Chromium (playwright-core), against a real
// listening server on SQLite: an assistant's authorization URL opens the dashboard, which asks
// to sign in first and comes back to the consent screen; the person picks one site, read only,
// and approves; the browser is sent back to the assistant's redirect URI with a code, which the
// assistant exchanges (with its PKCE verifier) for a token the MCP endpoint takes. Then Settings >
// MCP set-up lists the connection and Revoke ends it. No page error and no CSP violation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../src/server.ts';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg, type BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { testConfig, TEST_SECRET } from './helpers/harness.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, pkce } from './helpers/oauth-kit.ts';

const chromiumReady = chromiumAvailable('dashboard OAuth consent end-to-end suite');
const OWNER = { email: 'owner@oauth-e2e.example', password: 'owner-password-1' };

describe.skipIf(!chromiumReady)('OAuth consent in Chromium against a real server', { timeout: 90_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  // The assistant's loopback listener, as command-line assistants run one for their redirect URI.
  let callback: Server;
  let REDIRECT_URI = '';
  const arrivals: URL[] = [];

  beforeAll(async () => {
    callback = createServer((req, res) => {
      arrivals.push(new URL(req.url ?? '/', REDIRECT_URI));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('back in the assistant');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    REDIRECT_URI = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    dir = mkdtempSync(join(tmpdir(), 'mallard-oauth-e2e-'));
    const port = await freePort();
    const config = testConfig({
      databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port, host: '127.0.0.1', publicUrl: `http://127.0.0.1:${port}`,
      rateLimits: { query: 100_000, manage: 100_000, ingest: 100_000, guide: 100_000, mcp: 100_000 },
    });
    server = await startServer(config, systemClock, {
      worker: false,
      beforeListen: async (store) => {
        org = await bootstrapOrg(store, new Secrets(TEST_SECRET), { org: 'OAuth Org', siteName: 'OAuth Shop', siteUrl: 'https://oauth-shop.example', ...OWNER }, Date.now());
      },
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('signs in, approves one site read only, and the assistant gets a code it exchanges for a working token; Revoke in settings ends it', async () => {
    const registered = await fetch(`${server.url}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'E2E Assistant', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = await registered.json() as { client_id: string };
    const { verifier, challenge } = pkce();
    const authorize = new URL(`${server.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: 'mcp', state: 'e2e-state', code_challenge: challenge, code_challenge_method: 'S256', resource: `${server.url}/v1/mcp` })) authorize.searchParams.set(k, v);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    await page.goto(authorize.href);
    await page.waitForURL((url) => url.hash.startsWith('#/oauth/consent'));
    // Signed out: the sign-in screen first, saying why.
    await page.locator('text=Sign in to connect an application to Mallard.').waitFor();
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('form button[type=submit]');
    // Back on the consent screen, signed in.
    await page.locator('#consent-site').waitFor();
    expect(await page.textContent('main')).toContain('E2E Assistant');
    expect(await page.textContent('main')).toContain(REDIRECT_URI);
    expect(await page.textContent('main')).toContain('an application on this computer');
    await page.selectOption('#consent-site', org.site_id);
    expect(await page.isChecked('input[name=consent-access][value=read]')).toBe(true);
    await page.click('button:has-text("Approve")');
    await page.waitForURL((url) => url.href.startsWith(REDIRECT_URI));
    await page.locator('text=back in the assistant').waitFor();
    // (The browser also asks the listener for its favicon.)
    const back = arrivals.filter((url) => url.pathname === '/callback');
    expect(back).toHaveLength(1);
    expect(back[0].searchParams.get('state')).toBe('e2e-state');
    const code = back[0].searchParams.get('code');
    expect(code).toBeTruthy();

    const exchanged = await fetch(`${server.url}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }).toString(),
    });
    expect(exchanged.status).toBe(200);
    const { access_token: token } = await exchanged.json() as { access_token: string };
    const ping = () => fetch(`${server.url}/v1/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect((await ping()).status).toBe(200);

    // Settings > MCP set-up lists it; Revoke ends it at once.
    await page.goto(`${server.url}/app/#/settings/mcp`);
    const row = page.locator('tr', { hasText: 'E2E Assistant' }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('OAuth Shop');
    await row.locator('button:has-text("Revoke")').click();
    await row.locator('button:has-text("Yes, revoke")').click();
    await page.locator('.state.done', { hasText: 'Connection revoked.' }).waitFor();
    expect((await ping()).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });
});
