// The dashboard's charts and its narrow layout, in Debian's Chromium driven by playwright-core,
// against a real listening server on SQLite seeded with three days of simulated traffic (the
// same set-up as dashboard-e2e.test.ts): the score chart's hover tooltip, its deploy links and
// table view, and at 390 px the menu, tables as cards, the journey map's frame and no screen
// wider than the window. Screenshots at 1280x720 and 390 px go to
// packages/server/test-output/dashboard/ (git-ignored) for a person to look at.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { marksByPoint } from '../../dashboard/src/layout/chart-points.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { startSeededDashboard } from './helpers/dashboard-server.ts';

const chromiumReady = chromiumAvailable('dashboard charts and narrow-screen suite');

const SHOTS = new URL('../test-output/dashboard/', import.meta.url).pathname;
const OWNER = { email: 'owner@shop.example', password: 'owner-password-1' };
const WIDE = { width: 1280, height: 720 };
const NARROW = { width: 390, height: 844 };
const DAY = 86_400_000;

interface HistoryRow { cycle_at: string; score: number }
interface Deploy { id: string; version: string; deployed_at: string; score_scale?: string }
interface Tab { context: BrowserContext; page: Page; errors: string[] }

describe.skipIf(!chromiumReady)('the dashboard\'s charts and narrow layout in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  let token: string;

  const get = async (path: string) => {
    const res = await fetch(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json() as { data: any };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body.data;
  };
  const site = () => `site_id=${org.site_id}`;

  /** A signed-in tab that records console errors, page errors and failed requests. */
  async function signedIn(viewport: { width: number; height: number }): Promise<Tab> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'America/New_York' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('button[type=submit]');
    await page.locator('header.top .who').waitFor();
    return { context, page, errors };
  }

  /** Goes to a screen by its address and waits until nothing is loading. */
  async function open(page: Page, hash: string, ready: string) {
    await page.goto(`${server.url}/app/${hash}`);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
  }

  /** The overview's chart data as the API gives it: points oldest first and the deploys in its 7-day window. */
  async function overviewChart() {
    const trends = await get(`/query/trends?${site()}&days=7`);
    const history = [...trends.history as HistoryRow[]].sort((a, b) => Date.parse(a.cycle_at) - Date.parse(b.cycle_at));
    const { deploys } = await get(`/query/deploys?${site()}&limit=50`) as { deploys: Deploy[] };
    const from = Date.now() - 7 * DAY;
    const inWindow = deploys.filter((d) => Date.parse(d.deployed_at) >= from);
    const marks = marksByPoint(history.map((h) => Date.parse(h.cycle_at)), inWindow.map((d) => ({ ...d, atMs: Date.parse(d.deployed_at) })), DAY);
    return { history, inWindow, marks };
  }

  const localTime = (page: Page, iso: string) => page.evaluate((at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)), iso);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-mobile-e2e-'));
    mkdirSync(SHOTS, { recursive: true });
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Mobile E2E Org', siteName: 'Acme Shop', siteUrl: 'https://shop.example', days: 3, sessionsPerDay: 150, seed: 'dashboard-mobile-e2e' }));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows a tooltip on the score chart with the point\'s score and time and the deploy at that point', async () => {
    const { history, inWindow, marks } = await overviewChart();
    expect(history.length).toBeGreaterThan(2);
    expect(inWindow.length, 'the seeded plan records deploys in the chart\'s window').toBeGreaterThan(0);
    const target = marks.findIndex((m) => m.length > 0);
    const deploy = marks[target][0];
    const tab = await signedIn(WIDE);
    try {
      await open(tab.page, '#/', '.chart .u-over');
      // The chart is below the fold at 720 px: a mouse only reaches what is in the window.
      await tab.page.locator('.chart .u-over').first().scrollIntoViewIfNeeded();
      const over = (await tab.page.locator('.chart .u-over').first().boundingBox())!;
      const [from, to] = [Date.now() - 7 * DAY, Date.now()];
      const xOf = (iso: string) => over.x + over.width * (Date.parse(iso) - from) / (to - from);
      const tip = tab.page.locator('.chart .chart-tip').first();
      // Points may lie closer together than a pixel: step outwards from the point until the tooltip names it.
      const wanted = await localTime(tab.page, history[target].cycle_at);
      let shown = '';
      for (const step of [0, 1, -1, 2, -2, 3, -3, 4, -4]) {
        await tab.page.mouse.move(xOf(history[target].cycle_at) + step, over.y + over.height / 2);
        await tip.waitFor();
        shown = await tip.locator('.chart-tip-time').innerText();
        if (shown === wanted) break;
      }
      expect(shown).toBe(wanted);
      expect(await tip.locator('.chart-tip-value').innerText()).toBe(`Score ${history[target].score.toFixed(1)}`);
      const label = deploy.score_scale === 'legacy' ? `${deploy.version} (old scale)` : deploy.version;
      expect(await tip.locator('.chart-tip-deploy').allInnerTexts()).toContain(`Deploy: ${label}`);
      // The tooltip stays inside the plot.
      const box = (await tip.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(over.x);
      expect(box.x + box.width).toBeLessThanOrEqual(over.x + over.width + 1);
      await tab.page.screenshot({ path: join(SHOTS, 'chart-tooltip-1280x720.png') });
      // Leaving the plot hides it.
      await tab.page.mouse.move(2, 2);
      await tip.waitFor({ state: 'hidden' });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('opens the deploy when its marker on the chart is clicked', async () => {
    const { inWindow } = await overviewChart();
    const deploy = inWindow[0];
    const tab = await signedIn(WIDE);
    try {
      await open(tab.page, '#/', '.chart .u-over');
      const marker = tab.page.locator(`.chart a.chart-marker[data-deploy="${deploy.id}"]`);
      expect(await marker.getAttribute('href')).toBe(`#/deploys/${deploy.id}`);
      await marker.click();
      await tab.page.waitForURL(`**/app/#/deploys/${deploy.id}`);
      const card = tab.page.locator(`li.deploy.chosen[data-deploy-id="${deploy.id}"]`);
      await card.waitFor();
      expect(await tab.page.locator('li.deploy.chosen').count()).toBe(1);
      expect(await card.locator('strong').first().innerText()).toBe(deploy.version);
      expect(await card.locator('button[aria-expanded="true"]').count()).toBe(1);
      await tab.page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
      expect(await card.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })).toBe(true);
      await tab.page.screenshot({ path: join(SHOTS, 'deploy-chosen-1280x720.png') });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('lists the chart\'s points in a table view reached with the keyboard', async () => {
    const { history, marks } = await overviewChart();
    const tab = await signedIn(WIDE);
    try {
      await open(tab.page, '#/', '.chart .u-over');
      const toggle = tab.page.locator('.chart .chart-table-toggle').first();
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.focus();
      await tab.page.keyboard.press('Enter');
      const rows = tab.page.locator('table.chart-table tbody tr');
      await rows.first().waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const shown = await rows.evaluateAll((trs) => (trs as HTMLTableRowElement[]).map((tr) => ({
        at: tr.querySelector('time')!.getAttribute('datetime'), score: tr.cells[1].textContent, marks: tr.cells[3].textContent,
      })));
      expect(shown.map((r) => ({ at: r.at, score: r.score }))).toEqual(history.map((h) => ({ at: h.cycle_at, score: h.score.toFixed(1) })));
      marks.forEach((m, i) => {
        for (const d of m) expect(shown[i].marks).toContain(d.version);
      });
      expect(marks.flat().length).toBeGreaterThan(0);
      await tab.page.locator('table.chart-table').screenshot({ path: join(SHOTS, 'chart-table-1280x720.png') });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('explains the journey map\'s colours and unit in a legend, and keeps the map inside its frame at 390 px', async () => {
    const journeys = await get(`/query/journeys/friction?${site()}`);
    expect(journeys.edges.length).toBeGreaterThan(1);
    for (const [label, viewport] of [['1280x720', WIDE], ['390px', NARROW]] as const) {
      const tab = await signedIn(viewport);
      try {
        await open(tab.page, '#/journeys', 'svg.journey');
        const legend = await tab.page.locator('ul.journey-legend').innerText();
        expect(legend).toMatch(/orange: a step to a page further along/);
        expect(legend).toMatch(/dark red: a reload/);
        const drawn = journeys.edges.slice(0, 20).map((e: { friction_weight: number }) => e.friction_weight);
        expect(legend).toContain(`from ${Math.min(...drawn).toLocaleString('en-US', { maximumFractionDigits: 1 })} friction points (thinnest)`);
        expect(await tab.page.locator('.journey-unit').innerText()).toContain('Friction weight is counted in points');
        expect(await tab.page.locator('ol.edge-list > li .small').first().innerText()).toContain(`${journeys.edges[0].friction_weight.toLocaleString('en-US', { maximumFractionDigits: 1 })} friction points`);
        if (label === '390px') {
          const frame = await tab.page.locator('.journey-scroll').evaluate((el) => ({
            right: el.getBoundingClientRect().right, clientWidth: el.clientWidth, scrollWidth: el.scrollWidth, overflowX: getComputedStyle(el).overflowX,
          }));
          expect(frame.right).toBeLessThanOrEqual(NARROW.width);
          expect(frame.overflowX).toBe('auto');
          expect(frame.scrollWidth, 'the map is wider than a phone and scrolls inside its frame').toBeGreaterThan(frame.clientWidth);
          expect(await tab.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        }
        await tab.page.screenshot({ path: join(SHOTS, `journeys-legend-${label}.png`), fullPage: true });
        expect(tab.errors).toEqual([]);
      } finally {
        await tab.context.close();
      }
    }
  });

  it('opens the navigation as a menu at 390 px and reaches Sessions and Settings through it', async () => {
    const tab = await signedIn(NARROW);
    try {
      await open(tab.page, '#/', 'main h1');
      const nav = tab.page.locator('nav.tabs');
      const toggle = tab.page.locator('button.menu-toggle');
      expect(await nav.isVisible()).toBe(false);
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      await nav.waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await tab.page.screenshot({ path: join(SHOTS, 'menu-open-390px.png') });
      await nav.getByRole('link', { name: 'Sessions' }).click();
      await tab.page.waitForURL('**/app/#/sessions');
      await tab.page.locator('main h1', { hasText: 'Sessions' }).waitFor();
      await nav.waitFor({ state: 'hidden' }); // it closes once a screen is chosen
      expect(await toggle.innerText()).toContain('Sessions');
      await toggle.click();
      await nav.getByRole('link', { name: 'Settings' }).click();
      await tab.page.waitForURL('**/app/#/settings');
      await tab.page.locator('main h1', { hasText: 'Settings' }).waitFor();
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('shows tables as stacked cards at 390 px, every column readable inside the window', async () => {
    const tab = await signedIn(NARROW);
    try {
      for (const [hash, table] of [['#/issues', 'table.issues'], ['#/settings/keys', '.table-scroll table'], ['#/settings/members', '.table-scroll table'], ['#/page?path=%2Fcheckout', 'table.elements']]) {
        await open(tab.page, hash, `${table} tbody tr`);
        const cells = await tab.page.locator(`${table} tbody tr`).first().locator(':scope > td, :scope > th').evaluateAll((els) => els.map((el) => {
          const r = el.getBoundingClientRect();
          return { label: el.getAttribute('data-label'), left: r.left, right: r.right, display: getComputedStyle(el).display };
        }));
        const headers = await tab.page.locator(`${table} thead th`).allTextContents();
        expect(cells.length, hash).toBeGreaterThan(1);
        // Each cell is a line of its card, headed by its column's name, and inside the window.
        expect(cells.map((c) => c.label), hash).toEqual(headers.slice(0, cells.length).map((h) => h.replace(/\s+/g, ' ').trim()));
        for (const c of cells) {
          expect(c.display, `${hash} ${c.label}`).toBe('block');
          expect(c.left, `${hash} ${c.label}`).toBeGreaterThanOrEqual(0);
          expect(c.right, `${hash} ${c.label}`).toBeLessThanOrEqual(NARROW.width);
        }
        expect(await tab.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), hash).toBe(true);
      }
      // The keys' Revoke buttons are on screen.
      await open(tab.page, '#/settings/keys', '.table-scroll table tbody tr');
      const revoke = await tab.page.getByRole('button', { name: 'Revoke' }).evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().right));
      expect(revoke.length).toBeGreaterThan(0);
      for (const right of revoke) expect(right).toBeLessThanOrEqual(NARROW.width);
      await open(tab.page, '#/issues', 'table.issues tbody tr');
      await tab.page.screenshot({ path: join(SHOTS, 'issues-cards-390px.png') });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('walks every screen route at 1280 and 390 px with no horizontal overflow and no console error; screenshots saved', async () => {
    const { issues } = await get(`/query/issues?${site()}&limit=1`);
    const { alerts } = await get(`/query/alerts?${site()}&limit=1`);
    const { deploys } = await get(`/query/deploys?${site()}&limit=1`);
    const journeys = await get(`/query/journeys/friction?${site()}`);
    // Every route app.tsx's router has, each with an id where it takes one, and every settings section.
    const screens: [string, string][] = [
      ['overview', '#/'], ['page', '#/page?path=%2Fcheckout'], ['page-mobile-heatmap', '#/page?path=%2Fcheckout&device=mobile'],
      ['issues', '#/issues'], ['issue', `#/issues/${issues[0].id}`],
      ['sessions', '#/sessions'], ['session', `#/sessions/${journeys.edges[0].examples[0].session_id}`],
      ['journeys', '#/journeys'], ['alerts', '#/alerts?status=any'], ['alert', `#/alerts/${alerts[0].id}`],
      ['deploys', '#/deploys'], ['deploy', `#/deploys/${deploys[0].id}`],
      ...['sites', 'keys', 'members', 'webhooks', 'integrations', 'sdk', 'rules', 'mcp'].map((t): [string, string] => [`settings-${t}`, `#/settings/${t}`]),
    ];
    for (const [label, viewport] of [['1280x720', WIDE], ['390px', NARROW]] as const) {
      const tab = await signedIn(viewport);
      try {
        for (const [name, hash] of screens) {
          await open(tab.page, hash, 'main h1');
          const widths = await tab.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
          expect(widths.scroll, `${name} at ${label} scrolls sideways`).toBeLessThanOrEqual(widths.inner);
          await tab.page.screenshot({ path: join(SHOTS, `responsive-${name}-${label}.png`), fullPage: true });
        }
        expect(tab.errors).toEqual([]);
      } finally {
        await tab.context.close();
      }
    }
  });
});
