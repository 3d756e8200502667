// The Flows screen and a revenue alert's breakdown in Debian's Chromium against a real server
// seeded with simulated traffic (the revenue alert links the pages and issues of its amount).
// On Flows, each page's next pages and their moves are the API's /query/flows edges grouped by page; a
// page opens its own view with where people came from; the device filter reaches the API; no
// console error and nothing wider than a 390 px window. Screenshots go to
// packages/server/test-output/dashboard/ (git-ignored).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { nextPages, previousPages, type FlowEdge } from '../../dashboard/src/lib/flows.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { startSeededDashboard } from './helpers/dashboard-server.ts';

const chromiumReady = chromiumAvailable('dashboard flows suite');
const SHOTS = new URL('../test-output/dashboard/', import.meta.url).pathname;
const OWNER = { email: 'owner@flows.example', password: 'owner-password-1' };

interface Tab { context: BrowserContext; page: Page; errors: string[] }

describe.skipIf(!chromiumReady)('the Flows screen in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  let token: string;

  const flows = async (query: string) => {
    const res = await fetch(`${server.url}/v1/query/flows?site_id=${org.site_id}&limit=500&from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}${query}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { edges: FlowEdge[] } }).data.edges;
  };

  async function signedIn(viewport: { width: number; height: number }): Promise<Tab> {
    const context = await browser.newContext({ viewport, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('button[type=submit]');
    await page.locator('header.top .who').waitFor();
    return { context, page, errors };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-flows-e2e-'));
    mkdirSync(SHOTS, { recursive: true });
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Flows E2E Org', siteName: 'Acme Shop', siteUrl: 'https://shop.example', days: 3, sessionsPerDay: 150, seed: 'dashboard-flows-e2e' }));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows each page\'s next pages as the API\'s edges grouped by page, and a page\'s own view both ways', async () => {
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      const expected = nextPages(await flows(''));
      expect(expected.length).toBeGreaterThan(1);
      await tab.page.goto(`${server.url}/app/#/flows`);
      await tab.page.locator('section.flow-page').first().waitFor();
      const shown = await tab.page.$$eval('section.flow-page', (sections) => sections.map((s) => ({
        page: s.querySelector('h2 code')!.textContent,
        steps: [...s.querySelectorAll('tbody tr')].map((r) => [r.querySelector('th code')!.textContent, r.querySelectorAll('td')[1].textContent]),
      })));
      expect(shown.map((s) => s.page)).toEqual(expected.map((p) => p.page));
      expect(shown[0].steps).toEqual(expected[0].steps.map((s) => [s.page, s.transitions.toLocaleString('en-US')]));
      await tab.page.screenshot({ path: join(SHOTS, 'flows-1280x720.png'), fullPage: true });

      // A page's own view: where people came from and went next.
      const focus = expected[0].page;
      await tab.page.click(`section.flow-page h2 a >> text="${focus}"`);
      await tab.page.locator('#fl-into').waitFor();
      const into = previousPages(await flows('')).find((p) => p.page === focus);
      const intoRows = await tab.page.$$eval('section[aria-labelledby=fl-into] tbody th code', (cells) => cells.map((c) => c.textContent));
      expect(intoRows).toEqual(into ? into.steps.map((s) => s.page) : []);
      expect(decodeURIComponent(new URL(tab.page.url()).hash)).toContain(`page=${focus}`);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('shows what makes up a revenue alert\'s amount: the pages and issues of /query/revenue, linked', async () => {
    const get = async (path: string) => ((await (await fetch(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: any }).data;
    const { alerts } = await get(`/query/alerts?site_id=${org.site_id}&limit=200`);
    const alert = (alerts as { id: string; trigger_type: string }[]).find((a) => a.trigger_type === 'revenue_threshold');
    expect(alert, 'the simulated traffic fires its revenue rule').toBeDefined();
    const revenue = await get(`/query/revenue?site_id=${org.site_id}`);
    const counted = (revenue.issues as { issue_id: string; page: string; monthly_revenue_at_risk_cents: number | null }[])
      .filter((i) => (i.monthly_revenue_at_risk_cents ?? 0) > 0).sort((a, b) => b.monthly_revenue_at_risk_cents! - a.monthly_revenue_at_risk_cents!);
    expect(counted.length).toBeGreaterThan(0);
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      await tab.page.goto(`${server.url}/app/#/alerts/${alert!.id}`);
      await tab.page.locator('ul.revenue-issues').waitFor();
      const issueLinks = await tab.page.$$eval('ul.revenue-issues a', (links) => links.map((a) => a.getAttribute('href')));
      expect(issueLinks).toEqual(counted.map((i) => `#/issues/${i.issue_id}`));
      const pageLinks = await tab.page.$$eval('ul.revenue-pages code', (cells) => cells.map((c) => c.textContent));
      expect(new Set(pageLinks)).toEqual(new Set(counted.map((i) => i.page)));
      await tab.page.click('ul.revenue-issues a >> nth=0');
      await tab.page.locator('#is-triage').waitFor();
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('filters by device as the API does, and fits a 390 px window', async () => {
    const tab = await signedIn({ width: 390, height: 844 });
    try {
      const mobile = nextPages(await flows('&device=mobile'));
      await tab.page.goto(`${server.url}/app/#/flows?device=mobile`);
      await tab.page.locator('.screen.flows .state, section.flow-page').first().waitFor();
      const pages = await tab.page.$$eval('section.flow-page h2 code', (cells) => cells.map((c) => c.textContent));
      expect(pages).toEqual(mobile.map((p) => p.page));
      const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await tab.page.screenshot({ path: join(SHOTS, 'flows-390px.png'), fullPage: true });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
