// The dashboard's cookie session in Debian's Chromium against a real listening server: a write
// without the session's CSRF token is refused even from the dashboard's own page; another
// site's page cannot make a signed-in browser write (SameSite=Strict keeps the cookie home, and
// the CSRF token is not there either); changing the password on the Account screen signs out
// the other browser and keeps this one signed in.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { signedInTab, startSeededDashboard, type DashboardTab } from './helpers/dashboard-server.ts';

const chromiumReady = chromiumAvailable('dashboard account and session suite');
const OWNER = { email: 'owner@account.example', password: 'owner-password-1' };
const NEW_PASSWORD = 'a-brand-new-password-2';

describe.skipIf(!chromiumReady)('the dashboard\'s cookie session in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let browser: Browser;
  let token: string;
  let otherSite: Server;

  const siteNames = async () => {
    const res = await fetch(`${server.url}/v1/manage/sites`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { sites: { name: string }[] } }).data.sites.map((s) => s.name);
  };

  const signedIn = (password = OWNER.password): Promise<DashboardTab> => signedInTab(browser, server.url, { email: OWNER.email, password });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-account-e2e-'));
    ({ server, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Account E2E Org', siteName: 'Acme Shop', siteUrl: 'https://shop.example', days: 1, sessionsPerDay: 20, seed: 'dashboard-account-e2e' }));
    browser = await launchChromium();
    // Another site (localhost is another site than 127.0.0.1): a page that tries to make the
    // visitor's browser create a Mallard site, by a form post and by a credentialed fetch.
    otherSite = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" enctype="text/plain" action="${server.url}/v1/manage/site">
        <input name='{"name":"Forged by form","url":"https://x.example","pad":"' value='"}'></form>
        <script>
          fetch(${JSON.stringify(`${server.url}/v1/manage/site`)}, { method: 'POST', credentials: 'include', mode: 'no-cors',
            headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'Forged by fetch', url: 'https://x.example' }) })
            .finally(() => { document.title = 'sent'; document.getElementById('f').submit(); });
        </script>`);
    });
    await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => otherSite?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a write from the dashboard\'s own page without the CSRF token, and serves it with the token', async () => {
    const tab = await signedIn();
    try {
      const attempt = (withToken: boolean) => tab.page.evaluate(async (withToken) => {
        const session = await (await fetch('/v1/auth/session')).json();
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (withToken) headers['x-csrf-token'] = session.data.csrf_token;
        const res = await fetch('/v1/manage/site', { method: 'POST', headers, body: JSON.stringify({ name: withToken ? 'With token' : 'Without token', url: 'https://t.example' }) });
        return { status: res.status, body: await res.json() };
      }, withToken);
      const refused = await attempt(false);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('csrf_failed');
      expect((await attempt(true)).status).toBe(201);
      const names = await siteNames();
      expect(names).toContain('With token');
      expect(names).not.toContain('Without token');
    } finally {
      await tab.context.close();
    }
  });

  it('lets no other site make a signed-in browser write', async () => {
    const tab = await signedIn();
    try {
      const { port } = otherSite.address() as AddressInfo;
      await tab.page.goto(`http://localhost:${port}/`);
      await tab.page.waitForURL((url) => url.pathname.startsWith('/v1/manage/site'), { timeout: 10_000 });
      // The form's navigation arrived without the cookie (SameSite=Strict): not signed in.
      expect(await tab.page.textContent('body')).toContain('missing_auth');
      const names = await siteNames();
      expect(names.filter((n) => n.startsWith('Forged'))).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('invites a member on the Members screen, who redeems the token on the set-password screen and is signed in', async () => {
    const admin = await signedIn();
    const invitee = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      await admin.page.goto(`${server.url}/app/#/settings/members`);
      await admin.page.fill('#member-email', 'new.member@account.example');
      await admin.page.selectOption('#member-role', 'viewer');
      await admin.page.click('form.stack-form button[type=submit]');
      const token = (await admin.page.locator('.shown-once code').textContent())!.trim();
      expect(token).toMatch(/^mlt_/);
      expect(await admin.page.textContent('.screen.settings')).toContain('/app/#/set-password');

      const page = await invitee.newPage();
      await page.goto(`${server.url}/app/`);
      await page.click('a[href="#/set-password"]');
      await page.fill('#invite-token', 'mlt_not-the-token');
      await page.fill('#set-password', 'invitee-password-1');
      await page.fill('#set-password-again', 'invitee-password-1');
      await page.click('button[type=submit]');
      expect(await page.locator('#set-password-error').textContent()).toContain('not valid');
      await page.fill('#invite-token', token);
      await page.click('button[type=submit]');
      await page.locator('header.top .who').waitFor();
      expect(await page.textContent('header.top .who')).toContain('new.member@account.example');
      // The token worked once.
      const again = await fetch(`${server.url}/v1/auth/set-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: 'another-password-1' }) });
      expect(again.status).toBe(400);
      expect(admin.errors).toEqual([]);
    } finally {
      await admin.context.close();
      await invitee.close();
    }
  });

  it('changes the password on the Account screen: the other browser is signed out, this one stays', async () => {
    const laptop = await signedIn();
    const phone = await signedIn();
    try {
      await laptop.page.goto(`${server.url}/app/#/settings/account`);
      await laptop.page.fill('#current-password', OWNER.password);
      await laptop.page.fill('#new-password', NEW_PASSWORD);
      await laptop.page.fill('#new-password-again', NEW_PASSWORD);
      await laptop.page.click('#change-password button[type=submit]');
      await laptop.page.locator('.state.done').waitFor();
      expect(await laptop.page.textContent('.state.done')).toContain('Password changed');

      // This browser is still signed in, writes included (its new session's CSRF token).
      await laptop.page.reload();
      await laptop.page.locator('header.top .who').waitFor();
      const write = await laptop.page.evaluate(async () => {
        const session = await (await fetch('/v1/auth/session')).json();
        const res = await fetch('/v1/manage/site', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrf_token }, body: JSON.stringify({ name: 'After change', url: 'https://a.example' }) });
        return res.status;
      });
      expect(write).toBe(201);

      // The other browser's next request finds its session ended.
      await phone.page.goto(`${server.url}/app/#/issues`);
      await phone.page.reload();
      await phone.page.locator('#email').waitFor();

      // The new password signs in; the old one does not.
      const again = await signedIn(NEW_PASSWORD);
      await again.context.close();
      expect(laptop.errors).toEqual([]);
    } finally {
      await laptop.context.close();
      await phone.context.close();
    }
  });
});
