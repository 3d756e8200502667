// The settings as forms, end to end: Debian's Chromium (playwright-core, never a downloaded
// browser) against a real listening server on SQLite, one browser and one server for the
// file. The SDK config, alert rules and integrations are edited through their forms; each
// message must sit by the control it concerns, whether the form's own check (the bounds the
// server publishes in /v1/openapi.json) or the API's 400 found it. What the forms copy from
// the server's schemas (trigger bounds, provider fields) is compared with them first.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../src/server.ts';
import { systemClock } from '../src/clock.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg, type BootstrapResult } from '../src/features/orgs/bootstrap.ts';
import { THRESHOLD_BOUNDS, TRIGGER_CONFIG } from '../src/features/alert-rules/schemas.ts';
import { TRIGGER_TYPES } from '../src/domain/alert-triggers.ts';
import { PROVIDER_CONFIGS, PROVIDERS } from '../src/domain/integrations.ts';
import { CONFIG_FIELDS, RECIPIENTS, THRESHOLDS, TRIGGERS } from '../../dashboard/src/lib/rule-triggers.ts';
import { PROVIDER_FIELDS } from '../../dashboard/src/lib/integration-fields.ts';
import { testConfig, TEST_SECRET } from './helpers/harness.ts';
import { chromiumAvailable, launchChromium } from './helpers/services.ts';

const chromiumReady = chromiumAvailable('dashboard settings end-to-end suite');
const OWNER = { email: 'owner@settings.example', password: 'owner-password-1' };
/** What Chromium logs for every 400 answer; a test that provokes a 400 counts exactly those. */
/** Screenshots for a person to look at (git-ignored), beside the dashboard suite's. */
const SHOTS = new URL('../test-output/dashboard/', import.meta.url).pathname;
const REFUSED = /Failed to load resource: the server responded with a status of 400/;

type Schema = { type?: string; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; maxItems?: number; uniqueItems?: boolean; anyOf?: Schema[]; const?: unknown; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema> };

describe('what the settings forms copy from the server\'s schemas', () => {
  it('has every trigger with the server\'s threshold bounds', () => {
    expect([...TRIGGERS]).toEqual([...TRIGGER_TYPES]);
    for (const t of TRIGGER_TYPES) expect([THRESHOLDS[t].min, THRESHOLDS[t].max], t).toEqual(THRESHOLD_BOUNDS[t]);
  });

  it('asks each trigger\'s config fields with the server\'s bounds, and its recipients as the server takes them', () => {
    const bounds = (s: Schema) => ({
      type: s.type, minimum: s.minimum, maximum: s.maximum, minLength: s.minLength, maxLength: s.maxLength,
      values: s.anyOf ? s.anyOf.map((v) => v.const) : s.enum,
    });
    for (const t of TRIGGER_TYPES) {
      const server = (TRIGGER_CONFIG[t] as unknown as Schema).properties!;
      const { recipients, ...own } = server;
      expect(Object.keys(own).sort(), t).toEqual(CONFIG_FIELDS[t].map((f) => f.name).sort());
      for (const f of CONFIG_FIELDS[t]) expect(bounds(f.schema as Schema), `${t}.${f.name}`).toEqual({ ...bounds(own[f.name]), type: own[f.name].anyOf ? undefined : own[f.name].type });
      expect([RECIPIENTS.maxItems, RECIPIENTS.uniqueItems, RECIPIENTS.items?.maxLength]).toEqual([recipients.maxItems, recipients.uniqueItems, recipients.items?.maxLength]);
    }
  });

  it('asks each provider for exactly the fields the server takes', () => {
    expect(Object.keys(PROVIDER_FIELDS).sort()).toEqual([...PROVIDERS].sort());
    for (const p of PROVIDERS) {
      const schema = PROVIDER_CONFIGS[p] as unknown as Schema;
      const serverVariants = (schema.anyOf ?? [schema]).map((v) => Object.keys(v.properties!).sort());
      expect(PROVIDER_FIELDS[p].variants.map((v) => v.fields.map((f) => f.name).sort()), p).toEqual(serverVariants);
    }
  });
});

describe.skipIf(!chromiumReady)('the settings forms in Chromium against a real server', { timeout: 90_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let org: BootstrapResult;
  let browser: Browser;
  let tab: { context: BrowserContext; page: Page; errors: string[] };
  let token: string;

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() as { data: any; error: { code: string; details?: { field?: string } } | null } };
  }
  const get = async (path: string) => {
    const res = await api('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const site = () => `site_id=${org.site_id}`;
  const production = async () => ((await get(`/manage/sdk-config?${site()}`)).environments as { environment: string; config: Record<string, unknown> }[]).find((e) => e.environment === 'production')?.config;

  /** The console errors so far, after taking away exactly `refusals` expected 400 answers. */
  function unexpectedErrors(refusals: number) {
    const refused = tab.errors.filter((e) => REFUSED.test(e));
    expect(refused).toHaveLength(refusals);
    const rest = tab.errors.filter((e) => !REFUSED.test(e));
    tab.errors.splice(0);
    return rest;
  }

  /** Opens a settings section afresh: by way of another section, so a form starts from what is stored. */
  async function open(hash: string, ready: string) {
    const { page } = tab;
    await page.goto(`${server.url}/app/#/settings/mcp`);
    await page.locator('section[aria-label="MCP set-up"]').waitFor();
    await page.goto(`${server.url}/app/${hash}`);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mallard-settings-e2e-'));
    mkdirSync(SHOTS, { recursive: true });
    const config = testConfig({ databaseUrl: `sqlite:${join(dir, 'e2e.db')}`, port: 0, host: '127.0.0.1', rateLimits: { query: 100_000, manage: 100_000, ingest: 100_000, guide: 100_000, mcp: 100_000 } });
    server = await startServer(config, systemClock, {
      worker: false,
      beforeListen: async (store) => {
        org = await bootstrapOrg(store, new Secrets(TEST_SECRET), { org: 'Settings Org', siteName: 'Form Shop', siteUrl: 'https://forms.example', ...OWNER }, Date.now());
      },
    });
    const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
    token = (await login.json() as { data: { token: string } }).data.token;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    tab = { context, page, errors };
    await page.goto(`${server.url}/app/`);
    await page.fill('#email', OWNER.email);
    await page.fill('#password', OWNER.password);
    await page.click('button[type=submit]');
    await page.locator('nav.tabs').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('saves the SDK config edited through its form', async () => {
    const { page } = tab;
    await open('#/settings/sdk', 'form.sdk-form');
    await page.fill('#sdk-sample_rate', '0.4');
    await page.fill('#sdk-ignore_selectors', '.cookie-banner\n#chat-widget');
    await page.check('#sdk-privacy-cookieless');
    await page.fill('#sdk-revenue_config-currency', 'EUR');
    await page.fill('#sdk-signal_weights', 'rage_click = 3');
    await page.click('form.sdk-form button[type=submit]');
    await expect(page.locator('form.sdk-form .state.done').innerText()).resolves.toBe('Saved the production settings.');
    expect(await production()).toEqual({
      sample_rate: 0.4, ignore_selectors: ['.cookie-banner', '#chat-widget'], privacy: { cookieless: true },
      revenue_config: { currency: 'EUR' }, signal_weights: { rage_click: 3 },
    });
    // After the reload the form shows what is stored.
    await expect(page.inputValue('#sdk-sample_rate')).resolves.toBe('0.4');
    expect(unexpectedErrors(0)).toEqual([]);
  });

  it('shows an out-of-range value\'s message on its field and saves nothing; the API\'s 400 lands on the field it names', async () => {
    const { page } = tab;
    await open('#/settings/sdk', 'form.sdk-form');
    const before = await production();
    await page.fill('#sdk-sample_rate', '1.5');
    await page.fill('#sdk-revenue_config-currency', 'euro');
    await page.click('form.sdk-form button[type=submit]');
    await expect(page.locator('#sdk-sample_rate-error').innerText()).resolves.toBe('must be at most 1');
    await expect(page.getAttribute('#sdk-sample_rate', 'aria-invalid')).resolves.toBe('true');
    await expect(page.getAttribute('#sdk-sample_rate', 'aria-describedby')).resolves.toBe('sdk-sample_rate-error');
    await expect(page.locator('#sdk-revenue_config-currency-error').innerText()).resolves.toBe('must be ISO 4217 code, default USD');
    expect(await page.locator('.field-error').count()).toBe(2);
    expect(await production()).toEqual(before);

    // A regular expression only the server can judge: its 400 names page_groups.0.match.
    await page.fill('#sdk-sample_rate', '0.4');
    await page.fill('#sdk-revenue_config-currency', 'EUR');
    await page.fill('#sdk-page_groups', '^/product/(\\d+ -> /product/:id');
    await page.click('form.sdk-form button[type=submit]');
    await expect(page.locator('#sdk-page_groups-error').innerText()).resolves.toBe('page_groups.0.match: is not a valid regular expression');
    expect(await page.locator('form.sdk-form .state.error').count()).toBe(0);
    expect(await production()).toEqual(before);
    expect(unexpectedErrors(1)).toEqual([]);
  });

  it('round-trips the advanced JSON view: the stored settings as JSON, an edit there back in the form, and saved', async () => {
    const { page } = tab;
    await open('#/settings/sdk', 'form.sdk-form');
    const stored = await production();
    await page.click('button:text-is("Advanced: JSON")');
    expect(JSON.parse(await page.inputValue('#sdk-json'))).toEqual(stored);
    await page.fill('#sdk-json', JSON.stringify({ ...stored, sample_rate: 0.25, page_groups: [{ match: '^/product/\\d+$', page: '/product/:id' }] }, null, 2));
    await page.click('button:text-is("Form")');
    await expect(page.inputValue('#sdk-sample_rate')).resolves.toBe('0.25');
    await expect(page.inputValue('#sdk-page_groups')).resolves.toBe('^/product/\\d+$ -> /product/:id');
    await expect(page.inputValue('#sdk-ignore_selectors')).resolves.toBe('.cookie-banner\n#chat-widget');
    await page.click('button:text-is("Advanced: JSON")');
    const shown = JSON.parse(await page.inputValue('#sdk-json'));
    expect(shown).toEqual({ ...stored, sample_rate: 0.25, page_groups: [{ match: '^/product/\\d+$', page: '/product/:id' }] });
    // Invalid JSON is said under the text and keeps the view.
    await page.fill('#sdk-json', '{ "sample_rate": ');
    await page.click('button:text-is("Form")');
    await expect(page.locator('#sdk-json-error').innerText()).resolves.toBe('This is not valid JSON.');
    await page.fill('#sdk-json', JSON.stringify(shown));
    await page.click('form.sdk-form button[type=submit]');
    await page.locator('form.sdk-form .state.done').waitFor();
    expect(await production()).toEqual(shown);
    expect(unexpectedErrors(0)).toEqual([]);
  });

  it('creates an alert rule through its form; a bad threshold and a bad page pattern are said on their fields', async () => {
    const { page } = tab;
    await open('#/settings/rules', 'form.rule-form');
    const form = page.locator('form[aria-label="New rule"]');
    await form.locator('#new-rule-name').fill('Checkout spike');
    await form.locator('#new-rule-trigger_type').selectOption('spike');
    await form.locator('#new-rule-threshold').fill('500');
    await form.locator('#new-rule-page_pattern').fill('checkout');
    await form.locator('button[type=submit]').click();
    // The threshold's bounds per trigger are the form's own check: nothing is sent.
    await expect(page.locator('#new-rule-threshold-error').innerText()).resolves.toBe('must be at most 100');
    await expect(form.locator('label[for="new-rule-threshold"]').innerText()).resolves.toContain('1 to 100');
    expect((await get(`/manage/alert-rules?${site()}`)).rules).toEqual([]);
    // The pattern's rule is the server's: its 400 names page_pattern.
    await form.locator('#new-rule-threshold').fill('20');
    await form.locator('button[type=submit]').click();
    await expect(page.locator('#new-rule-page_pattern-error').innerText()).resolves.toBe('must be *, a path, or a path ending in * for a prefix');
    expect(await page.locator('#new-rule-threshold-error').count()).toBe(0);
    await form.locator('#new-rule-page_pattern').fill('/checkout*');
    // A trigger's own settings appear with it, checked against its bounds.
    await form.locator('#new-rule-trigger_type').selectOption('trend');
    await form.locator('#new-rule-threshold').fill('40');
    await form.locator('#new-rule-config-increase_percent').fill('5000');
    await form.locator('button[type=submit]').click();
    await expect(page.locator('#new-rule-config-increase_percent-error').innerText()).resolves.toBe('must be at most 1000');
    await form.locator('#new-rule-config-increase_percent').fill('50');
    await form.locator('button[type=submit]').click();
    await expect(form.locator('.state.done').innerText()).resolves.toBe('Created the rule Checkout spike.');
    const rules = (await get(`/manage/alert-rules?${site()}`)).rules;
    expect(rules).toMatchObject([{ name: 'Checkout spike', trigger_type: 'trend', threshold: 40, page_pattern: '/checkout*', channels: ['webhook'], config: { increase_percent: 50 } }]);
    await page.locator(`tr[data-rule="${rules[0].id}"]`).waitFor();

    // Edited through the same form.
    await page.locator(`tr[data-rule="${rules[0].id}"] button:text-is("Edit")`).click();
    const edit = page.locator('form[aria-label="Edit the rule Checkout spike"]');
    await expect(edit.locator('#edit-rule-threshold').inputValue()).resolves.toBe('40');
    await edit.locator('#edit-rule-threshold').fill('-1');
    await edit.locator('button[type=submit]').click();
    await expect(page.locator('#edit-rule-threshold-error').innerText()).resolves.toBe('must be at least 0');
    await edit.locator('#edit-rule-threshold').fill('35');
    await edit.locator('button[type=submit]').click();
    await edit.waitFor({ state: 'detached' });
    expect((await get(`/manage/alert-rules?${site()}`)).rules[0].threshold).toBe(35);
    expect(unexpectedErrors(1)).toEqual([]);
  });

  it('warns of a rule whose channel cannot deliver, in the list and in the form, with a link to connect it', async () => {
    const { page } = tab;
    const created = await api('POST', '/manage/alert-rules', { site_id: org.site_id, name: 'Pager rule', trigger_type: 'spike', threshold: 10, channels: ['slack', 'pagerduty', 'email', 'webhook'] });
    expect(created.status).toBe(201);
    // The server's word: no integrations, and this server has no SMTP_URL.
    expect(created.body.data.undeliverable_channels).toEqual(['slack', 'pagerduty', 'email']);
    const id = created.body.data.id as string;
    await open('#/settings/rules', `tr[data-rule="${id}"]`);
    const warnings = page.locator(`tr[data-rule="${id}"] .channel-warning`);
    await expect(warnings.allInnerTexts()).resolves.toEqual([
      '⚠ Slack and PagerDuty are not connected: these alerts will not reach Slack and PagerDuty. Connect Slack · Connect PagerDuty',
      '⚠ Email is not set up on this server: these alerts will not be emailed. The server\'s operator sets SMTP_URL to send them.',
    ]);
    await expect(warnings.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).resolves.toEqual(['#/settings/integrations?provider=slack', '#/settings/integrations?provider=pagerduty']);
    // The webhook rule of the test before has no warning.
    expect(await page.locator(`tr:not([data-rule="${id}"]) .channel-warning`).count()).toBe(0);
    // In the form, as soon as the channel is ticked.
    const form = page.locator('form[aria-label="New rule"]');
    expect(await form.locator('.channel-warning').count()).toBe(0);
    await form.getByLabel('slack', { exact: true }).check();
    await expect(form.locator('.channel-warning').allInnerTexts()).resolves.toEqual(['⚠ Slack is not connected: these alerts will not reach Slack. Connect Slack']);
    await form.getByLabel('email', { exact: true }).check();
    await expect(form.locator('.channel-warning').count()).resolves.toBe(2);

    // The link opens the integrations form on Slack; once connected, only PagerDuty and email are left.
    await warnings.locator('a', { hasText: 'Connect Slack' }).click();
    await page.locator('form[aria-label="Connect an integration"]').waitFor();
    await expect(page.inputValue('#int-provider')).resolves.toBe('slack');
    await page.click('button:text-is("Bot token")');
    await page.fill('#int-bot_token', 'xoxb-settings-test');
    await page.fill('#int-channel', '#alerts');
    await page.click('form[aria-label="Connect an integration"] button[type=submit]');
    await page.locator('li[data-provider="slack"]').waitFor();
    await open('#/settings/rules', `tr[data-rule="${id}"]`);
    const left = await page.locator(`tr[data-rule="${id}"] .channel-warning`).allInnerTexts();
    expect(left.map((w) => w.split(':')[0])).toEqual(['⚠ PagerDuty is not connected', '⚠ Email is not set up on this server']);
    expect(unexpectedErrors(0)).toEqual([]);
  });

  it('shows the API\'s refusal of an integration\'s field on that field, and connects nothing', async () => {
    const { page } = tab;
    await open('#/settings/integrations', 'form[aria-label="Connect an integration"]');
    await page.selectOption('#int-provider', 'github');
    await page.click('form[aria-label="Connect an integration"] button[type=submit]');
    // Empty fields are the form's own check.
    await expect(page.locator('#int-token-error').innerText()).resolves.toBe('must not be empty');
    await expect(page.locator('#int-repo-error').innerText()).resolves.toBe('must not be empty');
    await page.fill('#int-token', 'ghp_settings_test');
    await page.fill('#int-repo', 'not a repository');
    await page.click('form[aria-label="Connect an integration"] button[type=submit]');
    const message = page.locator('#int-repo-error');
    await message.waitFor();
    // The server's words (its schema's pattern), not the form's: the same reason the API gives.
    const refused = await api('POST', '/manage/integrations', { site_id: org.site_id, provider: 'github', config: { token: 'ghp_settings_test', repo: 'not a repository' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.details?.field).toBe('config.repo');
    await expect(message.innerText()).resolves.toBe((refused.body.error as unknown as { details: { reason: string } }).details.reason);
    expect(await page.locator('#int-token-error').count()).toBe(0);
    expect(await page.locator('form[aria-label="Connect an integration"] .state.error').count()).toBe(0);
    expect((await get(`/manage/integrations?${site()}`)).integrations.map((i: { provider: string }) => i.provider)).toEqual(['slack']);
    expect(unexpectedErrors(1)).toEqual([]);
  });

  it('fits the forms in 390 px without sideways scrolling', async () => {
    const { page } = tab;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [hash, ready, name] of [['#/settings/sdk', 'form.sdk-form', 'sdk'], ['#/settings/rules', 'form.rule-form', 'rules'], ['#/settings/integrations', 'form[aria-label="Connect an integration"]', 'integrations']]) {
        await open(hash, ready);
        await page.screenshot({ path: `${SHOTS}settings-form-${name}-390.png`, fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, hash).toBeLessThanOrEqual(0);
        for (const form of await page.locator('form.stack-form').all()) {
          const box = (await form.boundingBox())!;
          expect(box.x + box.width, hash).toBeLessThanOrEqual(390);
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(unexpectedErrors(0)).toEqual([]);
  });

  it('sets a site\'s retention within the instance\'s maximum, and back to the instance\'s period', async () => {
    const { page } = tab;
    await open('#/settings/sites', 'table');
    const input = page.locator(`#retention-${org.site_id}`);
    // The instance's maximum (MALLARD_RETENTION_DAYS, 90 in the test config) bounds the field.
    expect(await input.getAttribute('max')).toBe('90');
    await input.fill('14');
    await input.locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator('p.state.done', { hasText: 'Form Shop keeps raw data for 14 days.' }).waitFor();
    const sites = (await get('/manage/sites')).sites as { id: string; retention_days: number | null; effective_retention_days: number }[];
    expect(sites.find((s) => s.id === org.site_id)).toMatchObject({ retention_days: 14, effective_retention_days: 14 });

    // Above the maximum, the browser's own check stops the form: nothing is sent, nothing changes.
    await input.fill('400');
    await input.locator('xpath=ancestor::form').locator('button[type=submit]').click();
    expect(await input.evaluate((el: HTMLInputElement) => el.validity.rangeOverflow)).toBe(true);
    expect(((await get('/manage/sites')).sites as { id: string; retention_days: number | null }[]).find((s) => s.id === org.site_id)!.retention_days).toBe(14);

    await input.fill('');
    await input.locator('xpath=ancestor::form').locator('button[type=submit]').click();
    await page.locator('p.state.done', { hasText: 'the instance\'s 90 days' }).waitFor();
    expect(((await get('/manage/sites')).sites as { id: string; retention_days: number | null }[]).find((s) => s.id === org.site_id)!.retention_days).toBeNull();
    expect(unexpectedErrors(0)).toEqual([]);
  });

  it('shows the site\'s clips storage as the API counts it, and saves its retention and daily budget', async () => {
    const { page } = tab;
    const usage = async () => get(`/manage/site/${org.site_id}/clips`);
    const before = await usage();
    await open('#/settings/sdk', '.clip-storage p');
    const text = await page.locator('.clip-storage').innerText();
    expect(text).toContain(`${before.clips} clips and ${before.snapshots} page snapshots`);
    expect(text).toContain(`kept ${before.effective_clip_retention_days} days`);
    expect(text).toContain('of the daily 50 MB budget');
    expect(text).toContain(before.accepting ? 'Pages still send clips today.' : 'Spent');

    await page.fill('#clip-retention', '10');
    await page.fill('#clip-budget', '2');
    await page.click('form.clip-storage-form button[type=submit]');
    await page.locator('.clip-storage p.state.done', { hasText: 'Clips are kept 10 days, with 2 MB a day.' }).waitFor();
    expect(await usage()).toMatchObject({ clip_retention_days: 10, effective_clip_retention_days: 10, clip_daily_bytes: 2 * 1024 * 1024 });
    await page.locator('.clip-storage', { hasText: 'of the daily 2 MB budget' }).waitFor();

    // A budget of nothing: the API stops taking clips, and the screen says so.
    await page.fill('#clip-budget', '0');
    await page.click('form.clip-storage-form button[type=submit]');
    await page.locator('.clip-storage', { hasText: 'of the daily 0 B budget' }).waitFor();
    const spent = await usage();
    expect(spent.clip_daily_bytes).toBe(0);
    expect(await page.locator('.clip-budget').innerText()).toContain(spent.accepting ? 'Pages still send clips today.' : 'Spent: pages send no more clips until midnight UTC.');
    expect(unexpectedErrors(0)).toEqual([]);
  });
});
