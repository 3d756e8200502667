// Two-factor sign-in through the dashboard, end to end: Debian's Chromium (playwright-core)
// against a real listening server on SQLite. The owner enrols on Settings > Two-factor (the QR
// code drawn under the strict CSP, the secret read from the screen and the code computed with
// otplib as an authenticator app would), keeps the recovery codes shown once, signs out, and
// signs in again with a code, then with a recovery code. An admin of an org that requires 2FA
// is held on the enrolment screen until they set it up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from '../src/server.ts';
import type { BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { startSeededDashboard } from './helpers/dashboard-server.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';

const chromiumReady = chromiumAvailable('dashboard two-factor end-to-end suite');
const OWNER = { email: 'owner@twofactor.example', password: 'owner-password-1' };
const ADMIN = { email: 'admin@twofactor.example', password: 'admin-password-1' };
/** Chromium logs every refused request (a 401 sign-in step, a wrong code) to the console: expected ones are counted apart. */
const REFUSED = /Failed to load resource: the server responded with a status of (401|400)/;

/** The code an authenticator app shows `stepsAhead` 30-second steps from now (the server accepts one step of drift). */
const codeFor = (secret: string, stepsAhead = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

describe.skipIf(!chromiumReady)('two-factor sign-in in Chromium against a real server', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let token: string;
  let browser: Browser;
  let secret = '';
  let recoveryCodes: string[] = [];
  /** The owner's browser, signed in with a recovery code, kept for the members screen. */
  let ownerTab: { context: BrowserContext; page: Page; errors: string[] } | undefined;

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as { data: any; error: { code: string } | null } };
  }

  async function newTab(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' && !REFUSED.test(m.text())) errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    return { context, page, errors };
  }

  /** The first step of the sign-in: email and password. */
  async function password(page: Page, who: { email: string; password: string }) {
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', who.email);
    await page.fill('#password', who.password);
    await page.click('button[type=submit]');
  }

  /** Enrols on the screen in view: starts, reads the secret the screen shows, confirms with a code; answers the recovery codes shown. */
  async function enrol(page: Page): Promise<{ secret: string; codes: string[] }> {
    await page.click('#start-2fa');
    const shown = page.locator('#totp-secret');
    await shown.waitFor();
    // The QR code is inline SVG shapes (no image, no data: URL).
    expect(await page.locator('svg.qr path').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('img').count()).toBe(0);
    const key = (await shown.getAttribute('data-secret'))!;
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    // Shown in groups of four for typing by hand.
    expect((await shown.innerText()).replace(/\s+/g, '')).toBe(key);
    await page.fill('#enable-code', codeFor(key));
    await page.click('#enable-2fa button[type=submit]');
    await page.locator('#recovery-codes').waitFor();
    const codes = (await page.locator('#recovery-codes li code').allInnerTexts()).map((c) => c.trim());
    return { secret: key, codes };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-dashboard-2fa-'));
    ({ server, org, token } = await startSeededDashboard(dir, { owner: OWNER, org: '2FA Org', siteName: 'Shop', siteUrl: 'https://shop.example', days: 1, sessionsPerDay: 20, seed: 'dashboard-2fa' }));
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('enrols on Settings > Two-factor: QR code, the secret, a code from the app, ten recovery codes shown once', async () => {
    const { context, page, errors } = await newTab();
    await password(page, OWNER);
    await page.locator('nav.tabs').waitFor();
    await page.goto(`${server.url}/app/#/settings/two-factor`);
    await page.locator('#start-2fa').waitFor();
    ({ secret, codes: recoveryCodes } = await enrol(page));
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[2-9a-z]{4}-[2-9a-z]{4}$/);
    // The server agrees, and the screen says so once the codes are put away.
    expect((await api('GET', '/auth/2fa')).body.data).toMatchObject({ enabled: true, recovery_codes_left: 10 });
    await page.click('text=Done');
    await page.locator('#twofa-status').waitFor();
    expect(await page.locator('#twofa-status').innerText()).toContain('10 recovery codes left');
    // Signing out ends the session.
    await page.click('button.sign-out');
    await page.locator('#email').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs in with the password, then the code the app shows (autocomplete one-time-code); a wrong code is said plainly', async () => {
    const { context, page, errors } = await newTab();
    await password(page, OWNER);
    const otp = page.locator('#otp');
    await otp.waitFor();
    expect(await otp.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await otp.getAttribute('inputmode')).toBe('numeric');
    // The password step is gone; the email stays in the form's state and is named.
    expect(await page.locator('#password').count()).toBe(0);
    expect(await page.locator('#otp-explained').innerText()).toContain(OWNER.email);
    const right = codeFor(secret, 1);
    await otp.fill(String((Number(right) + 1) % 1_000_000).padStart(6, '0'));
    await page.click('button[type=submit]');
    const message = await page.locator('#sign-in-error').innerText();
    expect(message).toContain('That code is not right');
    expect(message).toContain('invalid_otp');
    // The next step's code (the enabling code used this one), typed as the app groups it.
    await otp.fill(`${right.slice(0, 3)} ${right.slice(3)}`);
    await page.click('button[type=submit]');
    await page.locator('nav.tabs').waitFor();
    expect(await page.locator('.who .email').innerText()).toBe(OWNER.email);
    await page.click('button.sign-out');
    await page.locator('#email').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs in with a recovery code instead (the link under the code), which then works no more', async () => {
    const { context, page, errors } = await newTab();
    await password(page, OWNER);
    await page.locator('#otp').waitFor();
    await page.click('#otp-method');
    expect(await page.locator('label[for=otp]').innerText()).toBe('Recovery code');
    expect(await page.locator('#otp').getAttribute('autocomplete')).toBe('off');
    await page.fill('#otp', recoveryCodes[0].toUpperCase());
    await page.click('button[type=submit]');
    await page.locator('nav.tabs').waitFor();
    expect((await api('GET', '/auth/2fa')).body.data.recovery_codes_left).toBe(9);
    // Used: another browser cannot sign in with it. (This one stays signed in for the reset below:
    // the owner's sign-ins this minute are near the 10 a minute per email and address.)
    const other = await newTab();
    await password(other.page, OWNER);
    await other.page.click('#otp-method');
    await other.page.fill('#otp', recoveryCodes[0]);
    await other.page.click('button[type=submit]');
    expect(await other.page.locator('#sign-in-error').innerText()).toContain('invalid_otp');
    expect(errors).toEqual([]);
    expect(other.errors).toEqual([]);
    await other.context.close();
    ownerTab = { context, page, errors };
  });

  it('an admin of an org that requires 2FA sees only the enrolment screen until they set it up, then the dashboard', async () => {
    const invited = await api('POST', '/manage/members', { email: ADMIN.email, role: 'admin' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const set = await fetch(`${server.url}/v1/auth/set-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invited.body.data.invitation.token, password: ADMIN.password }) });
    expect(set.status).toBe(200);
    // The owner (enrolled above) requires it of admins, as the settings screen's select would.
    expect((await api('PATCH', '/manage/settings', { require_2fa: 'admins' })).body.data.require_2fa).toBe('admins');

    const { context, page, errors } = await newTab();
    await password(page, ADMIN);
    const notice = page.locator('#enrolment-required');
    await notice.waitFor();
    expect(await notice.innerText()).toContain('2FA Org requires two-factor sign-in');
    expect(await page.locator('nav.tabs').count()).toBe(0);
    // A reload keeps them there (the session says so).
    await page.reload();
    await page.locator('#start-2fa').waitFor();
    const enrolled = await enrol(page);
    expect(enrolled.codes).toHaveLength(10);
    await page.click('#finish-enrolment');
    await page.locator('nav.tabs').waitFor();
    // Now the rest of the dashboard answers them, and the policy select shows what the org requires.
    await page.goto(`${server.url}/app/#/settings/two-factor`);
    await page.locator('#require-2fa').waitFor();
    expect(await page.locator('#require-2fa').inputValue()).toBe('admins');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an owner clears the admin\'s two-factor sign-in from Settings > Members (a lost phone)', async () => {
    const { context, page, errors } = ownerTab!;
    await page.goto(`${server.url}/app/#/settings/members`);
    const row = page.locator('tr', { hasText: ADMIN.email });
    await row.locator('button', { hasText: 'Reset two-factor' }).click();
    await row.locator('button', { hasText: 'Yes, reset two-factor' }).click();
    expect(await page.locator('#reset-2fa-outcome').innerText()).toContain(`Two-factor sign-in cleared for ${ADMIN.email}`);
    // The admin signs in with the password alone again, and (the org requires it) is held on the enrolment screen.
    const admin = await newTab();
    await password(admin.page, ADMIN);
    await admin.page.locator('#enrolment-required').waitFor();
    expect(errors).toEqual([]);
    expect(admin.errors).toEqual([]);
    await admin.context.close();
    await context.close();
  });
});
