// The browser SDK end to end, in Debian's Chromium driven by playwright-core (never a
// downloaded browser). A fixture shop on 127.0.0.1 loads the SDK with one tag from a real
// Mallard server on SQLite; three visitors (three browser contexts, three sessions) click as
// frustrated users do; the pipeline runs; everything is read back through the public API.
//
// The shop: a "Buy now" button that does nothing, a disabled "Pay" submit, a coupon form whose
// request fails with a 500 and then shows an error message, and a normal link to /next.
// Each visitor: a burst of 4 clicks on "Buy now" at 25 % across and 75 % down the button, 2
// presses on the disabled "Pay", one failing coupon submit, then the link.
// Expected, per visitor: 1 rage_click (#broken), 1 disabled_element_attempt (#pay),
// 1 error_encounter (#apply: one signal per user action); nothing for the link.
// /shop: 3 active users; rage 3 x 25 = 75 beats disabled 3 x 20 and error 3 x 20, so
// rage_click is the dominant signal; 195 / 3 = 65 per user, all 3 affected (x2.5): raw 162.5,
// score 100 x (1 - e^-16.25) -> 100.0. Each cluster has 3 fires from 3 sessions: 3 issues.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../src/server.ts';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg, type BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import { testConfig, TEST_SECRET } from './helpers/harness.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';

const chromiumReady = chromiumAvailable('SDK end-to-end suite');

// A real visitor's browser: the headless marker would (rightly) get the batches dropped as a bot's.
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BUTTON = { left: 100, top: 120, width: 200, height: 60 };
const BURST_AT = { rx: 0.25, ry: 0.75 };

function shopPage(sdkOrigin: string, key: string, page: 'shop' | 'next') {
  const tag = `<script async src="${sdkOrigin}/sdk.js" data-key="${key}"></script>`;
  if (page === 'next') return `<!doctype html><html><head><title>Next</title>${tag}</head><body><h1>Thanks</h1><p>Nothing to see.</p></body></html>`;
  return `<!doctype html><html><head><title>Shop</title>
<style>body { margin: 0; font: 16px sans-serif; } #broken { position: absolute; left: ${BUTTON.left}px; top: ${BUTTON.top}px; width: ${BUTTON.width}px; height: ${BUTTON.height}px; }
#checkout { position: absolute; left: 100px; top: 260px; } #coupon { position: absolute; left: 100px; top: 360px; } #next { position: absolute; left: 100px; top: 480px; }</style>
${tag}</head><body>
<h1>Shop</h1>
<button id="broken" class="buy">Buy now</button>
<form id="checkout"><button id="pay" type="submit" disabled>Pay</button></form>
<form id="coupon"><input id="code" aria-label="Coupon code"><button id="apply" type="submit">Apply coupon</button><div id="coupon-msg"></div></form>
<a id="next" href="/next">Continue</a>
<script>
document.getElementById('coupon').addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await fetch('/api/coupon', { method: 'POST' });
  if (!res.ok) document.getElementById('coupon-msg').innerHTML = '<p role="alert">Coupon service failed</p>';
});
</script></body></html>`;
}

interface Api { get(path: string): Promise<any> }

describe.skipIf(!chromiumReady)('the SDK in Chromium against a real server', () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let fixture: Server;
  let shop: string;
  let browser: Browser;
  let api: Api;
  const sessions: string[] = [];
  const seenInBrowser: string[][] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-sdk-e2e-'));
    server = await startServer(testConfig({ databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port: 0, host: '127.0.0.1' }), systemClock, { worker: false });
    org = await bootstrapOrg(server.store, new Secrets(TEST_SECRET), {
      org: 'E2E shop', siteName: 'Shop', siteUrl: 'http://127.0.0.1', email: 'e2e@example.com', password: 'e2e-password-1',
    }, Date.now());
    api = {
      async get(path) {
        const res = await fetch(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${org.keys.secret}` } });
        const body = await res.json();
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        return body.data;
      },
    };
    fixture = createServer((req, res) => {
      if (req.url === '/api/coupon') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"coupon service down"}');
        return;
      }
      const page = req.url === '/next' ? 'next' : req.url === '/shop' ? 'shop' : null;
      if (!page) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopPage(server.url, org.keys.publishable, page));
    });
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    shop = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => fixture?.close(resolve));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Waits for the tag's client to have read its config, then collects what it detects. */
  async function sdkReady(page: Page) {
    await page.waitForFunction(() => 'Mallard' in window);
    await page.evaluate(async (key) => {
      const w = window as unknown as { Mallard: { init(o: { key: string }): Promise<void>; onFriction(f: (s: { type: string }) => void): void }; friction: string[] };
      await w.Mallard.init({ key });
      w.friction = [];
      w.Mallard.onFriction((s) => w.friction.push(s.type));
    }, org.keys.publishable);
  }

  const flush = (page: Page) => page.evaluate(() => (window as unknown as { Mallard: { flush(): Promise<void> } }).Mallard.flush());

  it('three frustrated visitors produce rage clicks, disabled-element attempts and errors, and nothing for the link', async () => {
    for (let visitor = 0; visitor < 3; visitor++) {
      const context = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1280, height: 720 } });
      const page = await context.newPage();
      await page.goto(`${shop}/shop`);
      await sdkReady(page);

      const x = BUTTON.left + BUTTON.width * BURST_AT.rx;
      const y = BUTTON.top + BUTTON.height * BURST_AT.ry;
      for (let i = 0; i < 4; i++) await page.mouse.click(x, y);

      const pay = (await page.locator('#pay').boundingBox())!;
      for (let i = 0; i < 2; i++) await page.mouse.click(pay.x + pay.width / 2, pay.y + pay.height / 2);

      await page.fill('#code', 'SPRING');
      await page.click('#apply');
      await page.locator('[role=alert]').waitFor();

      await page.waitForFunction(() => (window as unknown as { friction: string[] }).friction.length >= 3);
      seenInBrowser.push(await page.evaluate(() => [...(window as unknown as { friction: string[] }).friction].sort()));
      await flush(page);
      sessions.push(await page.evaluate(() => JSON.parse(localStorage.getItem('mallard_session')!).id as string));

      await page.click('#next');
      await page.waitForURL(`${shop}/next`);
      await sdkReady(page);
      await flush(page);
      await context.close();
    }

    expect(seenInBrowser).toEqual(Array(3).fill(['disabled_element_attempt', 'error_encounter', 'rage_click']));
    expect(new Set(sessions).size).toBe(3);
    for (const sid of sessions) expect(sid).toMatch(/^[0-9a-f]{32}$/);

    const result = await runCycle(server.store.db, org.site_id, Date.now() + 1000, { intervalMs: 15 * 60_000, clock: systemClock });
    expect(result.status).toBe('done');
  });

  it('scores /shop by hand: raw 162.5, score 100, rage_click dominant; /next 0; the site 50', async () => {
    // Every fire counts at confidence 1: a rage burst of 4 clicks (one above the minimum of 3)
    // well inside half the 2-second window, and the other two detectors always say 1.
    for (const sid of sessions) {
      const { events } = await api.get(`/query/session?session_id=${sid}`);
      expect(events.filter((e: { type: string }) => e.type === 'signal').map((e: { confidence: number }) => e.confidence)).toEqual([1, 1, 1]);
    }
    const data = await api.get('/query/scores');
    const { site } = data;
    expect(site.pages.map((p: { page: string }) => p.page), JSON.stringify(site.pages)).toEqual(['/shop', '/next']);
    const [shopRow, nextRow] = site.pages;
    // /shop (DOMAIN.md 3): rage 3 x 25 = 75, disabled 3 x 20 = 60, error 3 x 20 = 60; 195 over
    // 3 active users = 65; 3 of 3 affected (100 %, x2.5): raw 65 x 2.5 = 162.5;
    // score 100 x (1 - e^-16.25) = 100 x (1 - 8.8e-8) = 99.999991 -> 100.0, `critical` (above 80).
    // Percentages of 195: 75 -> 38 %, 60 -> 31 %; ties sorted by type name.
    expect(shopRow).toMatchObject({
      score: 100, raw_score: 162.5, active_users: 3, affected_users: 3, frustrated_users: 3, signal_count: 9,
      dominant_signal: 'rage_click', duck_state: 'critical', stale: false,
      breakdown: [
        { signal: 'rage_click', count: 3, weight: 25, weighted_score: 75, percentage: 38 },
        { signal: 'disabled_element_attempt', count: 3, weight: 20, weighted_score: 60, percentage: 31 },
        { signal: 'error_encounter', count: 3, weight: 20, weighted_score: 60, percentage: 31 },
      ],
    });
    // /next: the same 3 visitors, nothing wrong.
    expect(nextRow).toMatchObject({ score: 0, active_users: 3, affected_users: 0, signal_count: 0, dominant_signal: null, breakdown: [] });
    // The site: (100 x 3 + 0 x 3) / 6 = 50, `alert` (40-60) by the score itself (/shop at `critical`
    // only asks for `watching`; no alert rule exists); its 3 visitors, all affected.
    expect(site).toMatchObject({ overall_score: 50, total_active_users: 3, total_affected_users: 3 });
    expect(data).toMatchObject({ duck_state: 'alert', duck_reason: 'score' });
  });

  it('opens the expected issues', async () => {
    const { issues } = await api.get('/query/issues');
    const found = issues.map((i: { page: string; type: string; element_selector: string }) => `${i.page} ${i.type} ${i.element_selector}`).sort();
    expect(found).toEqual([
      '/shop disabled_element_attempt #pay',
      '/shop error_encounter #apply',
      '/shop rage_click #broken',
    ]);
    const rage = issues.find((i: { type: string }) => i.type === 'rage_click');
    expect(rage.element_label).toBe('Buy now');
  });

  it('puts the burst on the element heatmap where the clicks landed', async () => {
    const heatmap = await api.get(`/query/element-heatmap?page=/shop&selector=${encodeURIComponent('#broken')}`);
    const rage = heatmap.points.filter((p: { signal: string }) => p.signal === 'rage_click');
    expect(rage).toHaveLength(3);
    for (const point of rage) {
      expect(Math.abs(point.rx - BURST_AT.rx)).toBeLessThanOrEqual(0.05);
      expect(Math.abs(point.ry - BURST_AT.ry)).toBeLessThanOrEqual(0.05);
    }
  });

  it('has viewport points on the page heatmap', async () => {
    const heatmap = await api.get('/query/page-heatmap?page=/shop');
    const rage = heatmap.points.filter((p: { signal: string }) => p.signal === 'rage_click');
    expect(heatmap.points.length).toBe(6); // a rage burst and a disabled attempt per visitor
    for (const point of rage) {
      expect(Math.abs(point.vx - (BUTTON.left + BUTTON.width * BURST_AT.rx) / 1280)).toBeLessThanOrEqual(0.01);
      expect(Math.abs(point.vy - (BUTTON.top + BUTTON.height * BURST_AT.ry) / 720)).toBeLessThanOrEqual(0.01);
    }
    expect(heatmap.points.some((p: { signal: string; el?: string }) => p.signal === 'disabled_element_attempt' && p.el === '#pay')).toBe(true);
  });

  it('narrates each session', async () => {
    for (const sid of sessions) {
      const { narrative, events } = await api.get(`/query/session?session_id=${sid}`);
      expect(narrative).toContain('Arrived on /shop');
      expect(narrative).toContain("clicked 'Buy now' (#broken) 4 times");
      expect(narrative).toContain("tried to use 'Pay' (#pay) 2 times");
      expect(narrative).toContain('ran into an error: HTTP 500');
      expect(narrative).toContain('On /next');
      expect(events.filter((e: { type: string }) => e.type === 'pageview').map((e: { page: string }) => e.page)).toEqual(['/shop', '/next']);
    }
  });

  it('the normal link produces no signal', async () => {
    for (const sid of sessions) {
      const { events } = await api.get(`/query/session?session_id=${sid}`);
      const signals = events.filter((e: { type: string }) => e.type === 'signal');
      expect(signals.map((e: { signal_type: string }) => e.signal_type).sort()).toEqual(['disabled_element_attempt', 'error_encounter', 'rage_click']);
      expect(signals.some((e: { element_selector?: string; page: string }) => e.element_selector === '#next' || e.page === '/next')).toBe(false);
      expect(signals.map((e: { element_selector?: string }) => e.element_selector).sort()).toEqual(['#apply', '#broken', '#pay']);
    }
  });
});
