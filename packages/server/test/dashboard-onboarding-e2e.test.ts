// Onboarding and dead ends, end to end in Debian's Chromium (playwright-core, never a downloaded
// browser) at 1280 px against a real listening server on SQLite: a new empty site's overview
// shows the install snippet with a publishable key created on the spot and the site's allowed
// origins, and its live check turns green when a real page carrying that snippet (the real SDK,
// served by this server) sends its first event, then lists the first signal; the set-up
// checklist reads each step from the API; the ticket button exists only with a connected
// tracker; unknown addresses and settings sections say so; empty states name no API path or
// docs file; no console error on any of these screens.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { startSeededDashboard } from './helpers/dashboard-server.ts';

const chromiumReady = chromiumAvailable('dashboard onboarding end-to-end suite');

const OWNER = { email: 'owner@onboarding.example', password: 'owner-password-1' };
const WIDE = { width: 1280, height: 720 };
// A real visitor's browser: the headless marker would (rightly) get the batches dropped as a bot's.
const VISITOR_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe.skipIf(!chromiumReady)('onboarding and dead ends in the dashboard, in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  let token: string;
  let fixture: Server;
  let shop: string;
  /** The key the fixture shop's tag carries: the one the dashboard created and put in its snippet. */
  let shopKey = 'svc_pub_unset';

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as { data: any; error: { code: string } | null } };
  }
  const get = async (path: string) => {
    const res = await api('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  /** A new tab that records console errors, page errors and failed requests. */
  async function newTab() {
    const context = await browser.newContext({ viewport: WIDE, locale: 'en-US', timezoneId: 'America/New_York' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    return { context, page, errors };
  }

  async function signIn(page: Page, site?: string) {
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('button[type=submit]');
    await page.locator('nav.tabs').waitFor();
    if (site) await page.selectOption('.site-switch select', site);
  }

  /** Goes to a screen by its address and waits until nothing is loading. */
  async function open(page: Page, hash: string, ready: string) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
  }

  const emptyStateTexts = (page: Page) => page.locator('.state.empty').allInnerTexts();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-onboarding-e2e-'));
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Onboarding Org', siteName: 'Busy Shop', siteUrl: 'https://busy.example', days: 1, sessionsPerDay: 120, seed: 'onboarding-e2e' }));
    // The visitor's shop: a page carrying the install snippet, a button that does nothing.
    fixture = createServer((req, res) => {
      if (req.url !== '/shop') return void res.writeHead(404).end();
      const tag = `<script async src="${server.url}/sdk.js" data-key="${shopKey}"></script>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Shop</title>${tag}</head>
<body><h1>Shop</h1><button id="broken" style="position:absolute;left:100px;top:120px;width:200px;height:60px">Buy now</button></body></html>`);
    });
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    shop = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => fixture?.close(resolve));
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('walks a new empty site from the snippet to its first event and first signal, live', async () => {
    const created = await api('POST', '/manage/site', { name: 'New Shop', url: shop, allowed_origins: [shop] });
    expect(created.status).toBe(201);
    const site = created.body.data.id as string;
    const tab = await newTab();
    const visitor = await browser.newContext({ userAgent: VISITOR_AGENT, viewport: WIDE });
    try {
      await signIn(tab.page, site);
      const { page } = tab;
      await page.locator('[data-testid="no-data"] [data-testid="create-publishable"]').waitFor();
      // Before any key: the snippet has the placeholder, and the site's allowed origin is named.
      expect(await page.locator('[data-testid="install-snippet"]').innerText()).toBe(`<script async src="${server.url}/sdk.js" data-key="svc_pub_..."></script>`);
      expect(await page.locator('[data-testid="allowed-origins"]').innerText()).toContain(shop);
      expect(await page.locator('[data-testid="live-check"]').getAttribute('data-state')).toBe('waiting');
      const checklist = page.locator('[data-testid="setup-checklist"]');
      expect(await checklist.locator('[data-step="sdk"]').getAttribute('data-done')).toBe('false');
      expect(await checklist.locator('[data-step="signal"]').getAttribute('data-done')).toBe('false');
      expect(await checklist.locator('[data-step="deploy"]').getAttribute('data-done')).toBe('false');
      expect(await checklist.locator('[data-step="alerts"]').getAttribute('data-done')).toBe('false');
      // Bootstrap's MCP key belongs to the first site, so this one has none, as the keys list says.
      const { keys } = await get('/manage/keys');
      expect(keys.some((k: { key_type: string; site_id: string | null }) => k.key_type === 'mcp' && (k.site_id === null || k.site_id === site))).toBe(false);
      expect(await checklist.locator('[data-step="mcp"]').getAttribute('data-done')).toBe('false');
      expect(await checklist.locator('a[href="#/settings/integrations"]').count()).toBe(1);
      expect(await checklist.locator('a[href="#/settings/mcp"]').count()).toBe(1);
      expect(await checklist.locator('a[href="#/deploys"]').count()).toBe(1);

      // Create the publishable key from the onboarding card: the snippet then carries it.
      await page.click('[data-testid="create-publishable"]');
      await page.locator('[data-testid="new-publishable-key"]').waitFor();
      const snippet = await page.locator('[data-testid="install-snippet"]').innerText();
      const key = /data-key="(svc_pub_[A-Za-z0-9]+)"/.exec(snippet)?.[1];
      expect(key).toBeDefined();
      expect(snippet).toBe(`<script async src="${server.url}/sdk.js" data-key="${key}"></script>`);
      const listed = (await get(`/manage/keys?site_id=${site}`)).keys as { key_type: string; key_hint: string }[];
      expect(listed.filter((k) => k.key_type === 'publishable').map((k) => k.key_hint.slice(-4))).toEqual([key!.slice(-4)]);
      expect(await page.locator('[data-testid="live-check"]').getAttribute('data-state')).toBe('waiting');
      expect((await get(`/query/raw?site_id=${site}&table=events&limit=1`)).total).toBe(0);

      // A visitor opens the shop with that snippet: its first batch (a pageview) turns the check green.
      shopKey = key!;
      const shopPage = await visitor.newPage();
      await shopPage.goto(`${shop}/shop`);
      await shopPage.waitForFunction(() => 'Mallard' in window);
      await shopPage.evaluate(async (k) => {
        const m = (window as unknown as { Mallard: { init(o: { key: string }): Promise<void>; flush(): Promise<void> } }).Mallard;
        await m.init({ key: k });
        await m.flush();
      }, key!);
      await page.locator('[data-testid="live-check"][data-state="arrived"]').waitFor();
      const firstEvents = await get(`/query/raw?site_id=${site}&table=events&limit=5&order=asc`);
      expect(firstEvents.total).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="live-check"]').innerText()).toContain(firstEvents.rows[0].page);
      expect(await checklist.locator('[data-step="sdk"]').getAttribute('data-done')).toBe('true');

      // Then a rage click (four quick presses on a button that does nothing): the first signal is listed.
      for (let i = 0; i < 4; i++) await shopPage.mouse.click(150, 165);
      await shopPage.evaluate(() => (window as unknown as { Mallard: { flush(): Promise<void> } }).Mallard.flush());
      await page.locator('[data-testid="first-signals"] li[data-signal="rage_click"]').waitFor();
      const signals = await get(`/query/raw?site_id=${site}&table=signals&limit=5`);
      expect(signals.rows.map((s: { signal_type: string }) => s.signal_type)).toContain('rage_click');
      expect(await checklist.locator('[data-step="signal"]').getAttribute('data-done')).toBe('true');
      expect(await page.locator('[data-testid="no-data"] [data-testid="headline"]').count()).toBe(1);
      expect(await page.locator('.state.error').count()).toBe(0);
      expect(tab.errors).toEqual([]);
    } finally {
      await visitor.close();
      await tab.context.close();
      expect((await api('DELETE', `/manage/site/${site}`)).status).toBe(200);
    }
  });

  it('an empty site\'s screens show plain empty states, never an error box, an API path or a docs file', async () => {
    const created = await api('POST', '/manage/site', { name: 'Quiet Shop', url: 'https://quiet.example' });
    expect(created.status).toBe(201);
    const site = created.body.data.id as string;
    const tab = await newTab();
    try {
      await signIn(tab.page, site);
      const screens: [string, string][] = [
        ['#/', '[data-testid="no-data"]'],
        ['#/page?path=%2Fcheckout', '[data-testid="page-no-data"]'],
        ['#/deploys', '[data-testid="record-deploys"]'],
        ['#/issues', 'h1'], ['#/alerts', 'h1'], ['#/sessions', 'h1'], ['#/journeys', 'h1'],
        ['#/settings/webhooks', 'h2'], ['#/settings/integrations', 'h2'],
      ];
      for (const [hash, ready] of screens) {
        await open(tab.page, hash, ready);
        expect(await tab.page.locator('.state.error').count(), hash).toBe(0);
        if (hash !== '#/') expect((await emptyStateTexts(tab.page)).length, `${hash} has an empty state`).toBeGreaterThan(0);
        // Every sentence on the screen (copyable snippets are <pre>, not sentences).
        for (const text of await tab.page.locator('main p, main li').allInnerTexts()) expect(text, hash).not.toMatch(/\/v1\/|docs\/|\.md\b/);
      }
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
      expect((await api('DELETE', `/manage/site/${site}`)).status).toBe(200);
    }
  });

  it('a page without a score on a busy site says so plainly instead of a 404 error box', async () => {
    const tab = await newTab();
    try {
      await signIn(tab.page, org.site_id);
      const { site: summary } = await get(`/query/scores?site_id=${org.site_id}`);
      expect(summary.pages.length).toBeGreaterThan(0);
      expect((await api('GET', `/query/page?site_id=${org.site_id}&page=%2Fno-such-page`)).status).toBe(404);
      await open(tab.page, '#/page?path=%2Fno-such-page', '[data-testid="page-not-scored"]');
      expect(await tab.page.locator('.state.error').count()).toBe(0);
      // Both states title their card #pg-score: wait for the scored one (the hero), not the stale card.
      await open(tab.page, `#/page?path=${encodeURIComponent(summary.pages[0].page)}`, 'section.hero #pg-score');
      expect(await tab.page.locator('[data-testid="page-not-scored"]').count()).toBe(0);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('offers ticket creation only with Linear or GitHub connected, and otherwise where to connect one', async () => {
    const { issues } = await get(`/query/issues?site_id=${org.site_id}&limit=1`);
    expect(issues.length).toBe(1);
    const { integrations } = await get(`/manage/integrations?site_id=${org.site_id}`);
    expect(integrations).toEqual([]);
    const tab = await newTab();
    let connected: string | null = null;
    try {
      await signIn(tab.page, org.site_id);
      await open(tab.page, `#/issues/${issues[0].id}`, '#is-deploy');
      await tab.page.locator('[data-testid="ticket-connect"]').waitFor();
      expect(await tab.page.locator('button[data-ticket]').count()).toBe(0);
      expect(await tab.page.getByRole('button', { name: /ticket/i }).count()).toBe(0);
      expect(await tab.page.locator('[data-testid="ticket-connect"] a[href="#/settings/integrations"]').count()).toBe(1);

      const github = await api('POST', '/manage/integrations', { site_id: org.site_id, provider: 'github', config: { token: 'ghp_test_token_0000', repo: 'acme/shop' } });
      expect(github.status).toBe(201);
      connected = github.body.data.id as string;
      await tab.page.reload();
      await tab.page.locator('button[data-ticket="github"]').waitFor();
      expect(await tab.page.locator('button[data-ticket]').allInnerTexts()).toEqual(['Create a GitHub ticket']);
      expect(await tab.page.locator('[data-testid="ticket-connect"]').count()).toBe(0);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
      if (connected) expect((await api('DELETE', `/manage/integrations/${connected}`)).status).toBe(200);
    }
  });

  it('shows the checklist until every step is done, each step as the API tells it', async () => {
    const tab = await newTab();
    const made: string[] = [];
    try {
      await signIn(tab.page, org.site_id);
      await open(tab.page, '#/', 'table.pages');
      const checklist = tab.page.locator('[data-testid="setup-checklist"]');
      await checklist.waitFor();
      const done = () => checklist.locator('li[data-step]').evaluateAll((items) => Object.fromEntries(items.map((i) => [i.getAttribute('data-step'), i.getAttribute('data-done')])));
      const { deploys } = await get(`/query/deploys?site_id=${org.site_id}`);
      // The seeded site has events and signals; bootstrap gave it an MCP key; no alert channel yet.
      expect(await done()).toEqual({ sdk: 'true', signal: 'true', deploy: String(deploys.length > 0), alerts: 'false', mcp: 'true' });

      const pagerduty = await api('POST', '/manage/integrations', { site_id: org.site_id, provider: 'pagerduty', config: { routing_key: 'R0123456789abcdef0123456789abcdef' } });
      expect(pagerduty.status).toBe(201);
      made.push(pagerduty.body.data.id);
      if (deploys.length === 0) expect((await api('POST', '/manage/deploys', { site_id: org.site_id, version: 'v9.9.9' })).status).toBe(201);
      // A new tab reads the steps afresh: every step done, so the checklist is gone.
      await tab.page.reload();
      await tab.page.locator('table.pages').waitFor();
      await tab.page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
      await tab.page.locator('[data-testid="setup-done"]').waitFor({ state: 'attached' });
      expect(await checklist.count()).toBe(0);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
      for (const id of made) expect((await api('DELETE', `/manage/integrations/${id}`)).status).toBe(200);
    }
  });

  it('says "No such screen" for an unknown address and an unknown settings section, with the way back', async () => {
    const tab = await newTab();
    try {
      await signIn(tab.page, org.site_id);
      await open(tab.page, '#/nonsense', '[data-testid="no-such-screen"]');
      expect(await tab.page.locator('h1').innerText()).toBe('No such screen');
      expect(await tab.page.locator('[data-testid="no-such-screen"]').innerText()).toContain('#/nonsense');
      expect(await tab.page.locator('[data-testid="no-such-screen"] a[href="#/"]').count()).toBe(1);

      await open(tab.page, '#/settings/nonsense', '[data-testid="no-such-screen"]');
      const text = await tab.page.locator('[data-testid="no-such-screen"]').innerText();
      expect(text).toContain('No such screen');
      expect(text).toContain('nonsense');
      // Not the Sites section in disguise.
      expect(await tab.page.locator('nav.subtabs a[aria-current="page"]').count()).toBe(0);
      expect(await tab.page.locator('main h2', { hasText: /^Sites$/ }).count()).toBe(0);
      expect(await tab.page.locator('[data-testid="no-such-screen"] a[href="#/settings/sites"]').count()).toBe(1);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
