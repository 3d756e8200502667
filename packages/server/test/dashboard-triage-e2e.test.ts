// Triage screens in Debian's Chromium against a real server seeded with simulated traffic: the
// issues list's column sorts, search and bulk changes (checked through the API), the Flows
// screen, and a revenue alert's breakdown (the pages and issues of its amount, linked).
// On Flows, each page's next pages and their moves are the API's /query/flows edges grouped by page; a
// page opens its own view with where people came from; the device filter reaches the API; no
// console error and nothing wider than a 390 px window. Screenshots go to
// packages/server/test-output/dashboard/ (git-ignored).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { nextPages, previousPages, type FlowEdge } from '../../dashboard/src/lib/flows.ts';
import { systemClock } from '../src/clock.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { signedInTab, startSeededDashboard, type DashboardTab } from './helpers/dashboard-server.ts';

const chromiumReady = chromiumAvailable('dashboard triage suite');
const SHOTS = new URL('../test-output/dashboard/', import.meta.url).pathname;
const OWNER = { email: 'owner@flows.example', password: 'owner-password-1' };

describe.skipIf(!chromiumReady)('the triage screens in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  let token: string;

  const flows = async (query: string) => {
    const res = await fetch(`${server.url}/v1/query/flows?site_id=${org.site_id}&limit=500&from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}${query}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { edges: FlowEdge[] } }).data.edges;
  };

  const signedIn = (viewport: { width: number; height: number }): Promise<DashboardTab> => signedInTab(browser, server.url, OWNER, viewport);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-triage-e2e-'));
    mkdirSync(SHOTS, { recursive: true });
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Triage E2E Org', siteName: 'Acme Shop', siteUrl: 'https://shop.example', days: 3, sessionsPerDay: 150, seed: 'dashboard-flows-e2e' }));
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
    const call = async (method: string, path: string, body?: unknown) => ((await (await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    })).json()) as { data: any }).data;
    // Revenue at risk made on purpose (the simulated story's depends on where its hours fall):
    // 40 sessions rage-click a broken button and none converts, 40 calm ones on the same page
    // all buy for $50; then a revenue rule any amount fires, and a pipeline cycle runs it now.
    const rule = await call('POST', '/manage/alert-rules', { site_id: org.site_id, name: 'Any revenue at risk', trigger_type: 'revenue_threshold', threshold: 0, channels: [] });
    expect(rule?.id, 'the rule was created').toBeDefined();
    const now = Date.now();
    for (let n = 0; n < 80; n++) {
      const sid = (0xa0000000 + n).toString(16).padStart(32, '0');
      const at = now - 10 * 60_000 + n * 1000;
      const events = n < 40
        ? [{ type: 'pageview', ts: at, page: '/pay-broken' }, ...[0, 1, 2].map((k) => ({ type: 'signal', ts: at + 100 + k * 100, page: '/pay-broken', signal_type: 'rage_click', element: 'button.broken-pay', label: 'Pay', confidence: 0.9 }))]
        : [{ type: 'pageview', ts: at, page: '/pay-broken' }, { type: 'track', ts: at + 500, page: '/pay-broken', name: 'checkout_completed', props: { amount_cents: 5000 } }];
      const res = await fetch(`${server.url}/v1/ingest`, {
        method: 'POST', headers: { authorization: `Bearer ${org.keys.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sid, vid: sid, ts: now, import: true, url: 'https://shop.example/pay-broken', events }),
      });
      expect(res.status).toBe(202);
    }
    expect((await runCycle(server.store.db, org.site_id, Date.now(), { intervalMs: 5 * 60_000, clock: systemClock })).status).toBe('done');
    const revenue = await call('GET', `/query/revenue?site_id=${org.site_id}`);
    const counted = (revenue.issues as { issue_id: string; page: string; monthly_revenue_at_risk_cents: number | null }[])
      .filter((i) => (i.monthly_revenue_at_risk_cents ?? 0) > 0).sort((a, b) => b.monthly_revenue_at_risk_cents! - a.monthly_revenue_at_risk_cents!);
    expect(counted.map((i) => i.page), 'the broken button puts revenue at risk').toContain('/pay-broken');
    const { alerts } = await call('GET', `/query/alerts?site_id=${org.site_id}&limit=200`);
    const alert = (alerts as { id: string; trigger_type: string }[]).find((a) => a.trigger_type === 'revenue_threshold');
    expect(alert, 'the revenue rule fired').toBeDefined();
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

  /** Waits until the screen shows these rows (a full page of the previous filter has as many), then checks them. */
  const expectRows = async (page: Page, table: string, attribute: string, ids: string[]) => {
    await page.waitForFunction(([selector, attr, want]) => JSON.stringify([...document.querySelectorAll(selector)].map((r) => r.getAttribute(attr))) === want,
      [`${table} tbody tr`, attribute, JSON.stringify(ids)] as const, { timeout: 10_000 }).catch(() => undefined);
    expect(await page.$$eval(`${table} tbody tr`, (rows, attr) => rows.map((r) => r.getAttribute(attr)), attribute)).toEqual(ids);
  };
  const expectSessions = (page: Page, ids: string[]) => expectRows(page, 'table.session-search', 'data-session', ids);

  const issueIds = async (query: string) => {
    const res = await fetch(`${server.url}/v1/query/issues?site_id=${org.site_id}&limit=200${query}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { issues: { id: string; status: string; assigned_to: string | null; element_selector: string }[] } }).data.issues;
  };

  it('sorts the issues by a column header and searches them, in the API\'s order', async () => {
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      await tab.page.goto(`${server.url}/app/#/issues`);
      await tab.page.locator('table.issues tbody tr').first().waitFor();
      await tab.page.click('button.sort-header[data-sort=users]');
      await tab.page.waitForFunction(() => location.hash.includes('sort=users'));
      const byUsers = (await issueIds('&attention=true&sort=users')).map((i) => i.id);
      await expectRows(tab.page, 'table.issues', 'data-issue', byUsers);
      expect(await tab.page.getAttribute('th[aria-sort=descending] button', 'data-sort')).toBe('users');

      const selector = (await issueIds('&attention=true'))[0].element_selector;
      const term = selector.slice(0, Math.min(selector.length, 6));
      const matching = (await issueIds(`&attention=true&sort=users&q=${encodeURIComponent(term)}`)).map((i) => i.id);
      await tab.page.fill('#issue-search', term);
      await tab.page.press('#issue-search', 'Enter');
      await tab.page.waitForFunction(() => location.hash.includes('q='));
      await expectRows(tab.page, 'table.issues', 'data-issue', matching);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('changes the status and the assignee of selected issues in bulk, through the API', async () => {
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      await tab.page.goto(`${server.url}/app/#/issues?status=open`);
      await tab.page.locator('table.issues tbody tr').first().waitFor();
      const open = await issueIds('&status=open');
      expect(open.length).toBeGreaterThan(1);
      const chosen = open.slice(0, 2).map((i) => i.id);
      for (const id of chosen) await tab.page.check(`tr[data-issue="${id}"] input[type=checkbox]`);
      await tab.page.locator('.bulk-bar').waitFor();
      await tab.page.selectOption('#bulk-assignee', OWNER.email);
      await tab.page.click('#bulk-assign-apply');
      await tab.page.locator('.state.done').waitFor();
      expect(await tab.page.textContent('.state.done')).toContain(`2 issues assigned to ${OWNER.email}`);
      await tab.page.selectOption('#bulk-status', 'triaged');
      await tab.page.click('#bulk-status-apply');
      await tab.page.waitForFunction((ids) => ids.every((id) => !document.querySelector(`tr[data-issue="${id}"]`)), chosen);
      const after = await issueIds('&status=triaged');
      for (const id of chosen) expect(after.find((i) => i.id === id)).toMatchObject({ status: 'triaged', assigned_to: OWNER.email });
      // The assignee filter shows what the API's does, the two among them.
      const assigned = (await issueIds(`&assigned_to=${encodeURIComponent(OWNER.email)}`)).map((i) => i.id);
      for (const id of chosen) expect(assigned).toContain(id);
      await tab.page.goto(`${server.url}/app/#/issues?status=any&assigned_to=${encodeURIComponent(OWNER.email)}`);
      await expectRows(tab.page, 'table.issues', 'data-issue', assigned);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  const sessionIds = async (query: string) => {
    const res = await fetch(`${server.url}/v1/query/sessions?site_id=${org.site_id}${query}`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { sessions: { session_id: string }[]; total: number } }).data;
  };

  it('narrows the sessions as the API does, and lands pre-filtered from an issue', async () => {
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      const week = `&from=${encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString())}`;
      await tab.page.goto(`${server.url}/app/#/sessions`);
      await tab.page.locator('table.session-search tbody tr').first().waitFor();
      const all = await sessionIds(`&limit=50${week}`);
      await expectSessions(tab.page, all.sessions.map((x) => x.session_id));

      await tab.page.selectOption('#sessions-signal', 'rage_click');
      await tab.page.selectOption('#sessions-converted', 'false');
      const narrowed = await sessionIds(`&limit=50&signal_type=rage_click&converted=false${week}`);
      expect(narrowed.total).toBeLessThan(all.total);
      await expectSessions(tab.page, narrowed.sessions.map((x) => x.session_id));
      await tab.page.selectOption('#sessions-sort', 'duration');
      const longest = await sessionIds(`&limit=50&signal_type=rage_click&converted=false&sort=duration${week}`);
      await expectSessions(tab.page, longest.sessions.map((x) => x.session_id));
      await tab.page.screenshot({ path: join(SHOTS, 'sessions-1280x720.png'), fullPage: true });

      // From an issue: every session that met it, as the API answers for its id.
      const issue = (await issueIds('&attention=true'))[0];
      await tab.page.goto(`${server.url}/app/#/issues/${issue.id}`);
      await tab.page.click('#is-all-sessions');
      await tab.page.waitForFunction(() => location.hash.includes('issue_id='));
      const met = await sessionIds(`&limit=50&issue_id=${issue.id}&from=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}`);
      expect(met.total).toBeGreaterThan(0);
      await expectSessions(tab.page, met.sessions.map((x) => x.session_id));
      // A row opens the session's timeline.
      await tab.page.click('table.session-search tbody tr th a >> nth=0');
      await tab.page.locator('.narrative').waitFor();
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('builds a funnel, shows each step as the API counts it, saves it, and a step\'s friction opens the matching sessions', async () => {
    const steps = ['/products/*', '/cart', '/checkout', 'checkout_completed'];
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const res = await fetch(`${server.url}/v1/query/funnel?site_id=${org.site_id}&steps=${encodeURIComponent(steps.join(','))}&window_minutes=60&from=${encodeURIComponent(from)}`, { headers: { authorization: `Bearer ${token}` } });
    const funnel = ((await res.json()) as { data: { entered: number; completed: number; steps: { entered: number; converted: number; friction: { signals: Record<string, number> } }[] } }).data;
    expect(funnel.entered).toBeGreaterThan(0);
    const tab = await signedIn({ width: 1280, height: 720 });
    try {
      await tab.page.goto(`${server.url}/app/#/funnels?range=30d`);
      await tab.page.fill('#funnel-steps', steps.join('\n'));
      await tab.page.fill('#funnel-window', '60');
      await tab.page.click('.funnel-form button[type=submit]');
      await tab.page.locator('li.funnel-step').first().waitFor();
      const entered = await tab.page.$$eval('li.funnel-step .entered', (cells) => cells.map((c) => c.textContent));
      expect(entered).toEqual(funnel.steps.map((st) => `${st.entered.toLocaleString('en-US')} entered`));
      await tab.page.screenshot({ path: join(SHOTS, 'funnels-1280x720.png'), fullPage: true });

      // Saved, it is listed and chosen.
      await tab.page.fill('#funnel-name', 'Checkout path');
      await tab.page.click('#funnel-save');
      await tab.page.waitForFunction(() => location.hash.includes('id='));
      const listed = await fetch(`${server.url}/v1/manage/funnels?site_id=${org.site_id}`, { headers: { authorization: `Bearer ${token}` } });
      const saved = ((await listed.json()) as { data: { funnels: { id: string; name: string; steps: string[] }[] } }).data.funnels;
      expect(saved.find((f) => f.name === 'Checkout path')?.steps).toEqual(steps);

      // A step's friction chip opens the sessions of that page with that signal.
      const k = funnel.steps.findIndex((st, i) => steps[i].startsWith('/') && Object.keys(st.friction.signals).length > 0);
      expect(k, 'some page step met friction').toBeGreaterThanOrEqual(0);
      await tab.page.click(`li.funnel-step[data-step="${k}"] a.step-sessions >> nth=0`);
      await tab.page.waitForFunction(() => location.hash.startsWith('#/sessions?'));
      const hash = new URLSearchParams(decodeURIComponent(new URL(tab.page.url()).hash).split('?')[1]);
      expect(hash.get('page')).toBe(steps[k]);
      expect(Object.keys(funnel.steps[k].friction.signals)).toContain(hash.get('signal_type'));
      await tab.page.locator('table.session-search tbody tr, .screen.sessions .state.empty').first().waitFor();
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('filters flows by device as the API does; flows, sessions, funnels and issues fit a 390 px window', async () => {
    const tab = await signedIn({ width: 390, height: 844 });
    try {
      const mobile = nextPages(await flows('&device=mobile'));
      await tab.page.goto(`${server.url}/app/#/flows?device=mobile`);
      // The screen's answer, not its loading line (a loaded machine shows "Loading flows…" first).
      await tab.page.locator('.screen.flows .state:not(.loading), section.flow-page').first().waitFor();
      const pages = await tab.page.$$eval('section.flow-page h2 code', (cells) => cells.map((c) => c.textContent));
      expect(pages).toEqual(mobile.map((p) => p.page));
      const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await tab.page.screenshot({ path: join(SHOTS, 'flows-390px.png'), fullPage: true });
      // The other triage screens fit too.
      for (const [name, hash, ready] of [
        ['sessions', '#/sessions', 'table.session-search'],
        ['funnels', '#/funnels?steps=/cart,/checkout,checkout_completed&range=30d', 'li.funnel-step'],
        ['issues', '#/issues', 'table.issues'],
      ] as const) {
        await tab.page.goto(`${server.url}/app/${hash}`);
        await tab.page.locator(ready).first().waitFor();
        const wide = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(wide, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
        await tab.page.screenshot({ path: join(SHOTS, `${name}-390px.png`), fullPage: true });
      }
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
