// Friction clips end to end, in Debian's Chromium against a real server: a fixture page on its
// own loopback origin loads sdk.js with one tag from a real Mallard; the site's config turns
// clips on; a visitor types into a field and rage-clicks a dead button; the SDK loads its clips
// chunk from the server, sends one clip covering the rage click and a snapshot of the page;
// both are read back through the public API, and nothing planted on the page or typed is in
// what was stored. A form abandoned by navigating away (the signal fires as the page goes)
// still gets its clip: cut at pagehide and sent with keepalive.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../src/server.ts';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg, type BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { testConfig, TEST_SECRET } from './helpers/harness.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';

const chromiumReady = chromiumAvailable('clips end-to-end suite');

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** Strings that must never leave the browser: page text, a typed value, blocked content, an alt. */
const PLANTED = { text: 'PlantedParagraph4471', typed: 'TypedSecret9921', blocked: 'BlockedPanel5510', alt: 'AltSecret3382' };

const page = (sdkOrigin: string, key: string) => `<!doctype html><html><head><title>Checkout</title>
<style>body { margin: 0; font: 16px sans-serif; } #broken { position: absolute; left: 100px; top: 200px; width: 200px; height: 60px; }</style>
<script async src="${sdkOrigin}/sdk.js" data-key="${key}"></script></head><body>
<h1>Checkout</h1>
<p>${PLANTED.text} is what this paragraph says.</p>
<input id="card" aria-label="Card">
<div data-mallard-block><p>${PLANTED.blocked}</p></div>
<img alt="${PLANTED.alt}" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<button id="broken">Place order</button>
</body></html>`;

/** A page with a form, left by navigation before it is sent: form_abandonment at pagehide. */
const formPage = (sdkOrigin: string, key: string) => `<!doctype html><html><head><title>Address</title>
<script async src="${sdkOrigin}/sdk.js" data-key="${key}"></script></head><body>
<form id="address" action="/away"><label>Street <input id="street" name="street"></label><button>Save</button></form>
<a id="leave" href="/away">Somewhere else</a>
</body></html>`;

describe.skipIf(!chromiumReady)('friction clips from the SDK in Chromium to a real server', () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let fixture: Server;
  let shop: string;
  let browser: Browser;

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${org.keys.secret}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() as { data: any } };
  }
  async function until<T>(what: string, read: () => Promise<T | null>, ms = 45_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (value !== null) return value;
      if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-clips-e2e-'));
    server = await startServer(testConfig({ databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port: 0, host: '127.0.0.1' }), systemClock, { worker: false });
    org = await bootstrapOrg(server.store, new Secrets(TEST_SECRET), {
      org: 'Clips shop', siteName: 'Shop', siteUrl: 'http://127.0.0.1', email: 'clips@example.com', password: 'clips-password-1',
    }, Date.now());
    fixture = createServer((req, res) => {
      const html = req.url === '/checkout' ? page(server.url, org.keys.publishable)
        : req.url === '/address' ? formPage(server.url, org.keys.publishable)
          : req.url === '/away' ? '<!doctype html><title>Away</title><p>Elsewhere</p>' : null;
      if (!html) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    shop = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    // The browser's own agent is a desktop Chrome's: requests sent after a page is gone (keepalive,
    // sendBeacon) carry it, not the context's, and HeadlessChrome is filed as a bot.
    browser = await launchChromium([`--user-agent=${USER_AGENT}`]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => fixture?.close(resolve));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends one masked clip covering a rage click, and a snapshot of the page, once clips are on', { timeout: 120_000 }, async () => {
    const patched = await api('PATCH', `/manage/sdk-config/production?site_id=${org.site_id}`, { clips: { enabled: true } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    const context = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1280, height: 720 } });
    const tab = await context.newPage();
    const chunk = tab.waitForRequest((r) => /\/sdk\/clips-[^/]+\.js$/.test(r.url()));
    await tab.goto(`${shop}/checkout`);
    await chunk;
    await tab.waitForFunction(() => 'MallardClips' in window);
    await tab.fill('#card', PLANTED.typed);
    // A rage click: five quick presses on a button that does nothing.
    for (let i = 0; i < 5; i++) await tab.mouse.click(200, 230);

    const { clips } = await until('the clip', async () => {
      const { body } = await api('GET', `/query/clips?site_id=${org.site_id}&signal_type=rage_click`);
      // The rows, not the count: the two are read on separate read connections, and a count may see the new clip first.
      return body.data.clips.length > 0 ? body.data : null;
    });
    expect(clips).toHaveLength(1);
    expect(clips[0]).toMatchObject({ page: '/checkout', device: 'desktop' });
    expect(clips[0].signal_types).toContain('rage_click');
    const stored = (await api('GET', `/query/clips/${clips[0].id}?site_id=${org.site_id}`)).body.data;
    const recorded = JSON.stringify(stored.events);
    expect(stored.events.some((e: { type: number }) => e.type === 2), 'the clip starts from a full snapshot').toBe(true);
    expect(recorded, 'the button is in the recording (masked)').toContain('broken');
    for (const secret of Object.values(PLANTED)) expect(recorded, secret).not.toContain(secret);

    // The rage click's signal, as the ingest stored it, is the one the clip names.
    const signals = (await api('GET', `/query/raw?site_id=${org.site_id}&table=signals&limit=50`)).body.data.rows as { signal_type: string; sid: string }[];
    expect(signals.some((s) => s.signal_type === 'rage_click')).toBe(true);
    expect(stored.session_id).toBe(clips[0].session_id);

    const snapshot = await until('the page snapshot', async () => {
      const { status, body } = await api('GET', `/query/page-snapshot?site_id=${org.site_id}&page=/checkout&device=desktop`);
      return status === 200 ? body.data : null;
    });
    expect(snapshot.snapshot.type).toBe(2);
    const page = JSON.stringify(snapshot.snapshot);
    for (const secret of Object.values(PLANTED)) expect(page, secret).not.toContain(secret);
    await context.close();
  });

  it('a form abandoned by navigating away leaves one clip covering the signal, sent as the page went', { timeout: 120_000 }, async () => {
    const patched = await api('PATCH', `/manage/sdk-config/production?site_id=${org.site_id}`, { clips: { enabled: true } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const context = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1280, height: 720 } });
    const tab = await context.newPage();
    await tab.goto(`${shop}/address`);
    await tab.waitForFunction(() => 'MallardClips' in window);
    await tab.fill('#street', 'Somewhere 1');
    await new Promise((r) => setTimeout(r, 500));
    // Away within the clip's 5 s after the signal: without the send at pagehide there is no clip.
    const left = Date.now();
    await tab.click('#leave');
    await tab.waitForURL(`${shop}/away`);

    const { clips } = await until('the form_abandonment clip', async () => {
      const { body } = await api('GET', `/query/clips?site_id=${org.site_id}&signal_type=form_abandonment`);
      // The rows, not the count: the two are read on separate read connections, and a count may see the new clip first.
      return body.data.clips.length > 0 ? body.data : null;
    }, 20_000);
    expect(clips).toHaveLength(1);
    expect(clips[0]).toMatchObject({ page: '/address', signal_types: ['form_abandonment'] });
    const signals = (await api('GET', `/query/raw?site_id=${org.site_id}&table=signals&limit=50`)).body.data.rows as { signal_type: string; occurred_at: string }[];
    const signal = signals.find((s) => s.signal_type === 'form_abandonment');
    expect(signal, 'the signal was stored').toBeDefined();
    // occurred_at is the client's time corrected by the batch's clock (so later by its transit time,
    // a few ms); the clip's times are the client's. The clip ends as the page went, at the signal.
    const at = Date.parse(signal!.occurred_at);
    expect(at).toBeGreaterThanOrEqual(Date.parse(clips[0].started_at));
    expect(at).toBeLessThanOrEqual(Date.parse(clips[0].ended_at) + 1000);
    // Cut as the page went, not 5 s after the signal.
    expect(Date.parse(clips[0].ended_at)).toBeLessThan(left + 2000);
    const stored = (await api('GET', `/query/clips/${clips[0].id}?site_id=${org.site_id}`)).body.data;
    expect(stored.events.some((e: { type: number }) => e.type === 2), 'the clip starts from a full snapshot').toBe(true);
    expect(JSON.stringify(stored.events)).not.toContain('Somewhere 1');
    await new Promise((r) => setTimeout(r, 2000));
    expect((await api('GET', `/query/clips?site_id=${org.site_id}&signal_type=form_abandonment`)).body.data.total).toBe(1);
    await context.close();
  });
});
