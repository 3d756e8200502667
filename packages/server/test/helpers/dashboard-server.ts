// The real server the dashboard's browser suites drive: a SQLite store in `dir`, one org
// bootstrapped with `owner`, simulated traffic seeded through the real ingest path, limits
// lifted (the per-person limits are not what those suites are about), and the owner's token.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Secrets } from '../../src/auth/secrets.ts';
import { systemClock } from '../../src/clock.ts';
import { bootstrapOrg, type BootstrapResult } from '../../src/features/orgs/bootstrap.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { generatePlan } from '../../src/simulate/generate.ts';
import { seedStore } from '../../src/simulate/run.ts';
import { testConfig, TEST_SECRET } from './harness.ts';

export interface SeededDashboard { server: RunningServer; org: BootstrapResult; token: string }

export async function startSeededDashboard(dir: string, input: {
  owner: { email: string; password: string };
  org: string; siteName: string; siteUrl: string;
  days: number; sessionsPerDay: number; seed: string;
}): Promise<SeededDashboard> {
  const now = Date.now();
  const config = testConfig({ databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port: 0, host: '127.0.0.1', rateLimits: { query: 100_000, manage: 100_000, ingest: 100_000, guide: 100_000, mcp: 100_000 } });
  let org!: BootstrapResult;
  const server = await startServer(config, systemClock, {
    worker: false,
    beforeListen: async (store) => {
      org = await bootstrapOrg(store, new Secrets(TEST_SECRET), { org: input.org, siteName: input.siteName, siteUrl: input.siteUrl, ...input.owner }, now);
      await seedStore({ store, config, siteId: org.site_id, secretKey: org.keys.secret, plan: generatePlan({ days: input.days, sessionsPerDay: input.sessionsPerDay, seed: input.seed, end: now }) });
    },
  });
  const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input.owner) });
  const token = (await login.json() as { data: { token: string } }).data.token;
  return { server, org, token };
}

/** A browser tab of its own context, recording console errors and page errors. */
export interface DashboardTab { context: BrowserContext; page: Page; errors: string[] }

export async function newDashboardTab(browser: Browser, viewport = { width: 1280, height: 720 }): Promise<DashboardTab> {
  const context = await browser.newContext({ viewport, locale: 'en-US' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return { context, page, errors };
}

/** A new tab signed in through the dashboard's sign-in screen. */
export async function signedInTab(browser: Browser, baseUrl: string, who: { email: string; password: string }, viewport?: { width: number; height: number }): Promise<DashboardTab> {
  const tab = await newDashboardTab(browser, viewport);
  await tab.page.goto(`${baseUrl}/app/`);
  await tab.page.fill('#email', who.email);
  await tab.page.fill('#password', who.password);
  await tab.page.click('button[type=submit]');
  await tab.page.locator('header.top .who').waitFor();
  return tab;
}
