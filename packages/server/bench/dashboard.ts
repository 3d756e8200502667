// The dashboard's weight and speed: the bytes a first visit downloads (gzip, as the server
// sends them), and the time from navigation to the overview's first render (the site score
// and the ranked pages on screen) and until every overview section has loaded, in Debian's
// Chromium against `mallard serve` with the full first-run demo (14 days, 250 sessions a day).
// Cold: a fresh browser context (empty cache). Warm: the same tab reloaded (assets revalidated).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { serveWithDemo } from '../src/demo/serve.ts';
import { loadDashboard } from '../src/features/dashboard/build.ts';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = 7;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Milliseconds from navigation start to the first render, and to every section loaded. */
async function measure(page: Page, load: () => Promise<unknown>) {
  await load();
  await page.waitForFunction(() => performance.getEntriesByName('mallard:overview-rendered').length > 0, undefined, { polling: 'raf' });
  await page.waitForFunction(() => document.querySelector('table.pages') && document.querySelectorAll('.state.loading').length === 0, undefined, { polling: 'raf' });
  // No named functions inside: tsx would wrap them in a helper the page does not have.
  const [first, complete, script, sites, scores] = await page.evaluate((parts) => [
    performance.getEntriesByName('mallard:overview-rendered')[0].startTime, performance.now(),
    ...parts.map((part) => (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => r.name.includes(part))?.responseEnd ?? NaN),
  ], ['/app/assets/main-', '/v1/manage/sites', '/v1/query/scores']);
  return { first, complete, script, sites, scores };
}

type Timing = Awaited<ReturnType<typeof measure>>;
const row = (label: string, runs: Timing[]) => {
  const m = (k: keyof Timing) => `${median(runs.map((t) => t[k])).toFixed(0)} ms`;
  return `| ${label} | ${m('script')} | ${m('sites')} | ${m('scores')} | **${m('first')}** | ${m('complete')} |`;
};

export async function runDashboardBench(): Promise<string> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}`);
  const dashboard = await loadDashboard();
  const files = [...dashboard.assets].map(([name, f]) => ({ name, raw: f.body.length, gzip: f.gzipped.length }));
  files.push({ name: 'index.html', raw: dashboard.index.body.length, gzip: dashboard.index.gzipped.length });

  const dir = mkdtempSync(join(tmpdir(), 'mallard-bench-dashboard-'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'data', 'mallard.db')}`, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_QUERY_PER_MIN: '100000' });
  const started = Date.now();
  const served = await serveWithDemo(config, systemClock, { worker: false, trickle: false, print: () => {} });
  const seededMs = Date.now() - started;
  let browser: Browser | null = null;
  try {
    if (served.demo?.status !== 'created') throw new Error('the demo was not created');
    const { credentials } = served.demo;
    const url = served.server.url;
    const login = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: credentials.email, password: credentials.password }) });
    const session = JSON.stringify((await login.json() as { data: unknown }).data);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const cold: Timing[] = [];
    const warm: Timing[] = [];
    let apiCalls = 0;
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      // A tab that is already signed in (the sign-in itself is not what is measured).
      await context.addInitScript((s) => sessionStorage.setItem('mallard.session', s), session);
      const page = await context.newPage();
      const calls: string[] = [];
      page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/v1/')) calls.push(r.url()); });
      cold.push(await measure(page, () => page.goto(`${url}/app/`)));
      apiCalls = calls.length;
      warm.push(await measure(page, () => page.reload()));
      await context.close();
    }
    const total = files.reduce((s, f) => s + f.gzip, 0);
    return [
      `Demo store: ${served.demo.summary.sessions.toLocaleString('en')} sessions over 14 days (seeded in ${(seededMs / 1000).toFixed(0)} s); Chromium ${browser.version()}, 1280x720; median of ${RUNS} runs.`,
      '',
      '| file | bytes | gzip |',
      '|---|---|---|',
      ...files.sort((a, b) => b.gzip - a.gzip).map((f) => `| ${f.name.replace(/-[A-Za-z0-9_-]{8,}\./, '-<hash>.')} | ${kb(f.raw)} | ${kb(f.gzip)} |`),
      `| **a first visit in all** | | **${kb(total)}** |`,
      '',
      'Milliseconds from navigation start (medians):',
      '',
      '| overview | script loaded | site list answered | scores answered | first render (score and pages) | every section loaded |',
      '|---|---|---|---|---|---|',
      row('cold (new browser context, empty cache)', cold),
      row('warm (the tab reloaded)', warm),
      '',
      `- A cold load makes ${apiCalls} API requests: the org's sites, then scores, trends, deploys, open issues and alerts in parallel (a reload knows its site and sends all at once).`,
      `- Load average when done: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} cores.`,
    ].join('\n');
  } finally {
    await browser?.close();
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
