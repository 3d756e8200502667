// The dashboard's side of friction clips (issue 28 item 5) in Debian's Chromium against a real
// listening server (SQLite, a day of simulated traffic): the page heatmap over the page's
// snapshot, rebuilt in a sandboxed frame where nothing runs, with an element's presses inside
// the element's box; an issue's clip played with our controls, opening at the signal's moment;
// a session's clips on its timeline; the empty state when clips are off; the clips settings.
// Everything is the server's own answer: clips are turned on and off with the real
// PATCH /v1/manage/sdk-config, and a clip and a page snapshot recorded with rrweb in this run
// (helpers/clip-fixtures.ts) are stored through POST /v1/ingest/clips after their sessions and
// signals went through POST /v1/ingest. Screenshots at 1280x720 and 390 px go to
// packages/server/test-output/dashboard/ (git-ignored).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';
import { signedInTab, startSeededDashboard, type DashboardTab } from './helpers/dashboard-server.ts';
import { fixtureHeat, FIXTURE_PAGE, FIXTURE_SESSION_ID, PLANTED_GLOBAL, recordClipFixtures, storeClipFixtures, type ClipFixtures, type IssueKey } from './helpers/clip-fixtures.ts';

const chromiumReady = chromiumAvailable('dashboard clips suite');

const SHOTS = new URL('../test-output/dashboard/', import.meta.url).pathname;
const OWNER = { email: 'owner@shop.example', password: 'owner-password-1' };
const WIDE = { width: 1280, height: 720 };
const NARROW = { width: 390, height: 844 };

/**
 * Console errors a screen may log and why: the 404 the browser reports for a page with no
 * snapshot, and the CSP refusing rrweb's replayer the one empty <style> it adds to its frame (the
 * hash is that of empty content, so no recorded CSS was refused; our own sheet applies its rules).
 */
const EMPTY_STYLE_REFUSED = /Applying inline style violates .*'sha256-47DEQpj8HBSa\+\/TImW\+5JCeuQeRkm5NMpJWZG3hSuFU='/;
const expectedErrors = (errors: string[], player = false) => errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e) && !(player && EMPTY_STYLE_REFUSED.test(e)));

describe.skipIf(!chromiumReady)('the dashboard\'s heatmap over snapshots and clip player in Chromium', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let token: string;
  let browser: Browser;
  let fixtures: ClipFixtures;
  let issueId: string;
  let otherIssueId: string;

  const get = async (path: string) => {
    const res = await fetch(`${server.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json() as { data: any };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body.data;
  };

  /** Turns clips on or off for the site's production environment, as Settings does. */
  async function setClips(enabled: boolean) {
    const res = await fetch(`${server.url}/v1/manage/sdk-config/production?site_id=${org.site_id}`, {
      method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ clips: { enabled } }),
    });
    if (res.status !== 200) throw new Error(`PATCH sdk-config: ${res.status} ${await res.text()}`);
  }

  async function tab(viewport = WIDE, clipsOn = true): Promise<DashboardTab> {
    await setClips(clipsOn);
    return signedInTab(browser, server.url, OWNER, viewport);
  }

  async function open(page: Page, hash: string, ready: string) {
    await page.goto(`${server.url}/app/${hash}`);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-clips-e2e-'));
    mkdirSync(SHOTS, { recursive: true });
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: 'Clips E2E Org', siteName: 'Acme Shop', siteUrl: 'https://shop.example', days: 1, sessionsPerDay: 120, seed: 'dashboard-clips-e2e' }));
    browser = await launchChromium();
    fixtures = await recordClipFixtures(browser);
    const { issues } = await get(`/query/issues?site_id=${org.site_id}&limit=2`) as { issues: ({ id: string } & IssueKey)[] };
    expect(issues.length, 'the seeded traffic makes at least two issues').toBe(2);
    [issueId, otherIssueId] = issues.map((i) => i.id);
    // The clip covers a signal of the first issue; the other issue has none.
    await setClips(true);
    await storeClipFixtures(server.url, org.keys.secret, fixtures, issues[0]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('draws the page heatmap over the rebuilt snapshot, each press of an element inside that element\'s box', async () => {
    const t = await tab();
    const elementAsks: string[] = [];
    t.page.on('request', (r) => { if (r.url().includes('/v1/query/element-heatmap')) elementAsks.push(new URL(r.url()).searchParams.get('selector') ?? ''); });
    try {
      await open(t.page, `#/page?path=${encodeURIComponent(FIXTURE_PAGE)}&device=desktop`, '.snapshot-overlay .pt');
      await t.page.locator('.snapshot-overlay g.el-box[data-selector="#place-order"]').waitFor();
      await t.page.locator('.snapshot-overlay .pt[data-el="#place-order"]').first().waitFor();
      const seen = await t.page.evaluate(() => {
        const frame = document.querySelector<HTMLIFrameElement>('.snapshot-page iframe')!;
        const doc = frame.contentDocument!;
        const at = frame.getBoundingClientRect();
        const scale = at.width / frame.offsetWidth;
        const onScreen = (el: Element) => { const r = el.getBoundingClientRect(); return { left: at.left + r.left * scale, top: at.top + r.top * scale, right: at.left + r.right * scale, bottom: at.top + r.bottom * scale }; };
        const centre = (el: Element) => { const r = el.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; };
        const rectOf = (el: Element) => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
        return {
          scale,
          sandbox: frame.getAttribute('sandbox'),
          button: onScreen(doc.querySelector('#place-order')!),
          card: onScreen(doc.querySelector('#checkout-card')!),
          buttonColour: getComputedStyle(doc.querySelector('#place-order')!).backgroundColor,
          inlineColour: getComputedStyle(doc.querySelector('.tall')!).backgroundColor,
          points: [...document.querySelectorAll('.snapshot-overlay .pt[data-el="#place-order"]')].map(centre),
          cardPoints: [...document.querySelectorAll('.snapshot-overlay .pt[data-el="#checkout-card"]')].map(centre),
          loose: document.querySelectorAll('.snapshot-overlay .pt:not([data-el])').length,
          boxes: [...document.querySelectorAll('.snapshot-overlay g.el-box')].map((g) => ({ selector: g.getAttribute('data-selector'), rect: rectOf(g.querySelector('rect')!), tabindex: g.getAttribute('tabindex') })),
          density: document.querySelectorAll('.snapshot-stage canvas.density').length,
        };
      });
      const planted = await t.page.evaluate((name) => ({
        top: (window as unknown as Record<string, unknown>)[name] ?? null,
        frame: (document.querySelector<HTMLIFrameElement>('.snapshot-page iframe')!.contentWindow as unknown as Record<string, unknown>)[name] ?? null,
        scriptsInFrame: document.querySelector<HTMLIFrameElement>('.snapshot-page iframe')!.contentDocument!.querySelectorAll('script').length,
      }), PLANTED_GLOBAL);
      // Nothing from the snapshot ran: the frame allows no scripts, and the planted ones are not in it.
      expect(seen.sandbox).toBe('allow-same-origin');
      expect(planted).toEqual({ top: null, frame: null, scriptsInFrame: 0 });
      // The page's own CSS (a <style> sheet and a style attribute) is applied under the strict CSP.
      expect(seen.buttonColour).toBe('rgb(0, 120, 60)');
      expect(seen.inlineColour).toBe('rgb(250, 250, 240)');
      expect(seen.scale).toBeLessThan(1);
      // Every press of the button sits inside the button's box as drawn (within 3 px), and so for the card.
      expect(seen.points).toHaveLength(5);
      const inside = (p: { x: number; y: number }, r: { left: number; top: number; right: number; bottom: number }) =>
        p.x >= r.left - 3 && p.x <= r.right + 3 && p.y >= r.top - 3 && p.y <= r.bottom + 3;
      for (const p of seen.points) expect(inside(p, seen.button), `${JSON.stringify(p)} in ${JSON.stringify(seen.button)}`).toBe(true);
      expect(seen.cardPoints).toHaveLength(3);
      for (const p of seen.cardPoints) expect(inside(p, seen.card)).toBe(true);
      // The press at (0.5, 0.5) of the button is at its centre.
      const mid = { x: (seen.button.left + seen.button.right) / 2, y: (seen.button.top + seen.button.bottom) / 2 };
      expect(seen.points.some((p) => Math.abs(p.x - mid.x) <= 3 && Math.abs(p.y - mid.y) <= 3)).toBe(true);
      // The presses on an element the snapshot does not have sit on the first screen.
      expect(seen.loose).toBe(2);
      expect(seen.density).toBe(1);
      // The boxes are the elements' boxes, the larger (the card) drawn first, each reachable by Tab.
      expect(seen.boxes.map((b) => b.selector)).toEqual(['#checkout-card', '#place-order']);
      const drawn = seen.boxes[1].rect;
      for (const k of ['left', 'top', 'right', 'bottom'] as const) expect(Math.abs(drawn[k] - seen.button[k])).toBeLessThanOrEqual(2);
      expect(seen.boxes.every((b) => b.tabindex === '0')).toBe(true);
      // Each element found in the snapshot asked for its element heatmap once (not on every render).
      expect(elementAsks.sort()).toEqual(['#checkout-card', '#place-order']);
      // Pressing the button's centre (inside the card too) opens the button, the smallest box there.
      await t.page.locator('.snapshot-overlay g.el-box[data-selector="#place-order"]').scrollIntoViewIfNeeded();
      await t.page.screenshot({ path: join(SHOTS, 'clips-heatmap-over-snapshot-1280x720.png') });
      const target = (await t.page.locator('.snapshot-overlay g.el-box[data-selector="#place-order"] rect').boundingBox())!;
      await t.page.mouse.click(target.x + target.width / 2, target.y + target.height / 2);
      await t.page.waitForFunction(() => location.hash.includes('el=%23place-order'));
      // And by keyboard: focus the card's box, Enter opens it.
      await t.page.locator('.snapshot-overlay g.el-box[data-selector="#checkout-card"]').focus();
      await t.page.keyboard.press('Enter');
      await t.page.waitForFunction(() => location.hash.includes('el=%23checkout-card'));
      expect(expectedErrors(t.errors)).toEqual([]);
    } finally {
      await t.context.close();
    }
  });

  it('keeps the viewport frame where the page has no snapshot yet', async () => {
    const t = await tab();
    try {
      // The fixture page has a desktop snapshot only: on mobile the snapshot route answers 404.
      await open(t.page, `#/page?path=${encodeURIComponent(FIXTURE_PAGE)}&device=mobile`, '[data-testid="no-snapshot"]');
      expect(await t.page.locator('svg.frame[data-device="mobile"] .pt').count()).toBe(fixtureHeat(fixtures).page.count);
      expect(await t.page.locator('.snapshot-page iframe').count()).toBe(0);
      expect(await t.page.locator('[data-testid="no-snapshot"]').innerText()).toContain('No snapshot of this page for this device class yet');
      expect(expectedErrors(t.errors)).toEqual([]);
    } finally {
      await t.context.close();
    }
    // With clips off for the site, no snapshot is asked for: the frame, saying why.
    const off = await tab(WIDE, false);
    try {
      const asked: string[] = [];
      off.page.on('request', (r) => { if (r.url().includes('/v1/query/page-snapshot')) asked.push(r.url()); });
      await open(off.page, `#/page?path=${encodeURIComponent(FIXTURE_PAGE)}&device=desktop`, '[data-testid="no-snapshot"]');
      expect(await off.page.locator('[data-testid="no-snapshot"]').innerText()).toContain('snapshots come with clips, which are off for this site');
      expect(await off.page.locator('svg.frame .pt').count()).toBe(fixtureHeat(fixtures).page.count);
      expect(asked).toEqual([]);
      expect(off.errors).toEqual([]);
    } finally {
      await off.context.close();
    }
  });

  it('plays an issue\'s clip with our controls, opening at the signal\'s moment with the signal marked', async () => {
    const t = await tab();
    try {
      await open(t.page, `#/issues/${issueId}`, '[data-clip-row]');
      await t.page.locator('[data-clip-row] button').click();
      const scrubber = t.page.locator('[data-testid="clip-scrubber"]');
      await t.page.locator('.clip-stage iframe').waitFor();
      await t.page.waitForFunction(() => !document.querySelector<HTMLInputElement>('[data-testid="clip-scrubber"]')?.disabled);
      // The replayer's frame shows the recorded page, sandboxed.
      const frame = await t.page.evaluate(() => {
        const f = document.querySelector<HTMLIFrameElement>('.clip-stage iframe')!;
        const doc = f.contentDocument!;
        return { sandbox: f.getAttribute('sandbox'), button: !!doc.querySelector('#place-order'), colour: doc.querySelector('#place-order') ? getComputedStyle(doc.querySelector('#place-order')!).backgroundColor : null };
      });
      expect(frame).toEqual({ sandbox: 'allow-same-origin', button: true, colour: 'rgb(0, 120, 60)' });
      // It opens paused at the signal's moment; the marker sits there on the scrubber.
      const duration = Date.parse(fixtures.clip.ended_at) - Date.parse(fixtures.clip.started_at);
      const marker = t.page.locator('[data-testid="signal-marker"]');
      expect(Number(await marker.getAttribute('data-moment'))).toBe(fixtures.signalMs);
      expect(Number(await scrubber.inputValue())).toBe(fixtures.signalMs);
      const track = (await scrubber.boundingBox())!;
      const mark = (await marker.boundingBox())!;
      expect(Math.abs(mark.x + mark.width / 2 - (track.x + track.width * fixtures.signalMs / duration))).toBeLessThanOrEqual(3);
      await t.page.locator('[data-testid="signal-pulse"]').waitFor();
      await t.page.locator('.clip-controls').scrollIntoViewIfNeeded();
      await t.page.screenshot({ path: join(SHOTS, 'clips-player-1280x720.png') });
      // Play from the start: the scrubber moves.
      await scrubber.fill('0');
      await t.page.locator('[data-testid="clip-play"]').click();
      await t.page.waitForFunction(() => Number(document.querySelector<HTMLInputElement>('[data-testid="clip-scrubber"]')!.value) > 300);
      expect(await t.page.locator('[data-testid="clip-play"]').innerText()).toBe('Pause');
      await t.page.locator('[data-testid="clip-speed"]').selectOption('4');
      await t.page.waitForFunction(() => document.querySelector('[data-testid="clip-play"]')!.textContent === 'Play');
      expect(Number(await scrubber.inputValue())).toBe(duration);
      expect(expectedErrors(t.errors, true)).toEqual([]);
    } finally {
      await t.context.close();
    }
  });

  it('shows a session\'s clips at their moments, each opening the player, and says when clips are off', async () => {
    // The site's stored SDK config has clips off: its clips are still listed, and where there are none the empty state says clips are off.
    const u = await tab(WIDE, false);
    try {
      await open(u.page, `#/sessions/${FIXTURE_SESSION_ID}`, '.session-clips button');
      // The clip's mark is on the strip (a clip at the session's very end included).
      const strip = (await u.page.locator('.session-clips').boundingBox())!;
      const mark = (await u.page.locator('.session-clips button').boundingBox())!;
      expect(mark.x).toBeGreaterThanOrEqual(strip.x);
      expect(mark.x + mark.width).toBeLessThanOrEqual(strip.x + strip.width);
      await u.page.locator('.session-clips button').click();
      await u.page.locator('.clip-stage iframe').waitFor();
      await u.page.locator('#ss-clips').scrollIntoViewIfNeeded();
      await u.page.screenshot({ path: join(SHOTS, 'clips-session-1280x720.png') });
      // Another issue has no clips, and the site's SDK config has clips off: the empty state says where to turn them on.
      await open(u.page, `#/issues/${otherIssueId}`, '[data-testid="clips-off"]');
      expect(await u.page.locator('[data-testid="clips-off"]').innerText()).toContain('Clips are off for this site: Settings › SDK config');
      expect(expectedErrors(u.errors, true)).toEqual([]);
    } finally {
      await u.context.close();
    }
  });

  it('at 390 px the heatmap over the snapshot and the player fit the window', async () => {
    const t = await tab(NARROW);
    try {
      await open(t.page, `#/page?path=${encodeURIComponent(FIXTURE_PAGE)}&device=desktop`, '.snapshot-overlay .pt');
      const wide = await t.page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide).toBeLessThanOrEqual(390);
      await t.page.locator('.snapshot-stage').scrollIntoViewIfNeeded();
      await t.page.screenshot({ path: join(SHOTS, 'clips-heatmap-over-snapshot-390.png') });
      await open(t.page, `#/issues/${issueId}`, '[data-clip-row]');
      await t.page.locator('[data-clip-row] button').click();
      await t.page.locator('.clip-stage iframe').waitFor();
      await t.page.waitForFunction(() => !document.querySelector<HTMLInputElement>('[data-testid="clip-scrubber"]')?.disabled);
      await t.page.locator('.clip-controls').scrollIntoViewIfNeeded();
      expect(await t.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // The recording fills the card's width (less its padding), not a fixed size.
      const card = (await t.page.locator('.clip-player').boundingBox())!;
      const frame = (await t.page.locator('.clip-frame').boundingBox())!;
      expect(frame.width).toBeGreaterThan(card.width - 8);
      await t.page.screenshot({ path: join(SHOTS, 'clips-player-390.png') });
      expect(expectedErrors(t.errors, true)).toEqual([]);
    } finally {
      await t.context.close();
    }
  });

  it('the SDK config form has the clips switch, unmask selectors, allow-media and what is and is never recorded', async () => {
    // The form reads the stored clips setting: on in the first, off in the second.
    for (const [viewport, name, on] of [[WIDE, '1280x720', true], [NARROW, '390', false]] as const) {
      const t = await tab(viewport, on);
      try {
        await open(t.page, '#/settings/sdk', '#sdk-clips-enabled');
        expect(await t.page.locator('#sdk-clips-enabled').isChecked()).toBe(on);
        await t.page.locator('#sdk-clips-unmask').waitFor();
        await t.page.locator('#sdk-clips-allow_media').waitFor();
        expect(await t.page.locator('[data-testid="clips-recorded"]').innerText()).toMatch(/Never recorded: .*inputs.*data-mallard-block/s);
        await t.page.locator('.clips-settings').scrollIntoViewIfNeeded();
        await t.page.screenshot({ path: join(SHOTS, `clips-settings-${name}.png`) });
        expect(expectedErrors(t.errors)).toEqual([]);
      } finally {
        await t.context.close();
      }
    }
  });
});
