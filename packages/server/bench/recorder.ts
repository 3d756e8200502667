// The clips recorder in the browser (issue 28): what it costs the page and what it sends. In
// Debian's Chromium, a shop page (100 product cards, a search that filters them, a cart that
// grows) driven by the same scripted normal interaction (pointer moves, wheel scrolls, clicks
// that change the page, typing) for INTERACTION_MS, with clips off (the baseline: the core SDK
// alone) and on, in alternating fresh contexts. Main-thread time is Chrome's own count
// (CDP Performance.getMetrics TaskDuration and ScriptDuration, over the interaction only) and
// long tasks (PerformanceObserver). Then a rage click with clips on: the clip the recorder
// sends 5 s later holds everything its buffer held at that moment (the buffer keeps exactly the
// segments from the newest checkout at or before 15 s ago), so its events' JSON is the buffer's
// size and its gzip body the clip's size. Sizes of both builds, as the server would serve them.
// Talks to the SDK's stand-in Mallard (packages/sdk/test/clips/stand-in.ts) on loopback.
// RECORDER_PAIRS: how many off/on pairs (3).
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { budgets, buildClips, buildScriptTag, version } from '../../sdk/build.mjs';
import { startMallard, startSite, type MallardStandIn } from '../../sdk/test/clips/stand-in.ts';
import { pause, User } from '../../sdk/test/corpus/user.ts';

const CHROMIUM = '/usr/bin/chromium';
const INTERACTION_MS = 15_000;
const PAIRS = Number(process.env.RECORDER_PAIRS) || 3;

const GIF = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
const cards = Array.from({ length: 100 }, (_, i) => `<article class="card" data-name="item ${i}"><img src="${GIF}" width="120" height="90" alt="Product ${i}">
<h3>Product number ${i}</h3><p>A sturdy thing for everyday use, in three colours; ships in ${1 + (i % 5)} days.</p>
<span class="price">${(9.99 + i).toFixed(2)} EUR</span><button class="add">Add to cart</button></article>`).join('\n');
const SHOP = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<style>body { font: 15px sans-serif; margin: 0 } header { position: sticky; top: 0; background: #fff; padding: 10px; border-bottom: 1px solid #ccc }
main { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; padding: 12px } .card { border: 1px solid #ddd; padding: 8px }
.card:hover { background: #f6f6f6 } #cart li { font-size: 13px } .hidden { display: none }</style>
<script async src="{{MALLARD}}/sdk.js" data-key="{{KEY}}"></script></head>
<body><header><input id="search" placeholder="Search products"> <span id="count">0 items</span><ul id="cart"></ul></header>
<main>${cards}</main>
<button id="broken" style="position: fixed; right: 20px; bottom: 20px; width: 140px; height: 40px">Checkout</button>
<script>
document.querySelector('main').addEventListener('click', (e) => {
  const card = e.target.closest('.card');
  if (!e.target.matches('.add') || !card) return;
  // Answered on the button itself, so adding is no dead click.
  e.target.textContent = 'Added';
  const li = document.createElement('li');
  li.textContent = card.querySelector('h3').textContent;
  document.getElementById('cart').append(li);
  document.getElementById('count').textContent = document.querySelectorAll('#cart li').length + ' items';
});
document.getElementById('search').addEventListener('input', (e) => {
  const q = e.target.value.trim();
  for (const card of document.querySelectorAll('.card')) card.classList.toggle('hidden', !!q && !card.dataset.name.includes(q));
});
</script></body></html>`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

interface Run { taskMs: number; scriptMs: number; recorderMs: number; longTasks: number; seconds: number }

interface Profile { nodes: { id: number; callFrame: { url: string }; children?: number[] }[]; samples?: number[]; timeDeltas?: number[] }

/**
 * Sampled main-thread time with the recorder's code on the stack (its own functions and what
 * they call: DOM reads, layout they force), from a CDP CPU profile.
 */
export function timeOnStack(profile: Profile, ours: (url: string) => boolean): number {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const memo = new Map<number, boolean>();
  const inside = (id: number): boolean => {
    if (memo.has(id)) return memo.get(id)!;
    const node = byId.get(id);
    const up = parent.get(id);
    const result = !!node && (ours(node.callFrame.url) || (up !== undefined && inside(up)));
    memo.set(id, result);
    return result;
  };
  let us = 0;
  (profile.samples ?? []).forEach((id, i) => { if (inside(id)) us += profile.timeDeltas?.[i + 1] ?? 0; });
  return us / 1000;
}

/** The scripted user: moves, scrolls, clicks that change the page, typing; until `ms` have passed. */
async function interact(user: User, ms: number) {
  const { page } = user;
  const until = Date.now() + ms;
  for (let round = 0; Date.now() < until; round++) {
    for (let i = 0; i < 4; i++) await page.mouse.move(100 + ((round * 173 + i * 211) % 1000), 120 + ((round * 97 + i * 131) % 520), { steps: 12 });
    await page.mouse.wheel(0, round % 4 === 3 ? -900 : 300);
    await pause(150);
    const add = page.locator('.card:not(.hidden) .add').nth(round % 8);
    if (await add.isVisible()) await user.clicks(`.card:not(.hidden) >> nth=${round % 8} >> .add`, 1);
    if (round % 5 === 2) {
      await user.clear('#search');
      await page.keyboard.type(`item ${round % 10}`, { delay: 40 });
    }
    if (round % 5 === 4) await user.clear('#search');
    await pause(250);
  }
}

async function measured(browser: Browser, mallard: MallardStandIn, site: string, key: string): Promise<Run> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const user = new User(page, site);
  await user.open(`/shop?key=${key}&mallard=${encodeURIComponent(mallard.base)}`);
  if (mallard.configs.has(key)) await page.waitForFunction(() => 'MallardClips' in window);
  await page.evaluate(() => {
    (window as unknown as { longTasks: number }).longTasks = 0;
    new PerformanceObserver((list) => { (window as unknown as { longTasks: number }).longTasks += list.getEntries().length; }).observe({ type: 'longtask' });
  });
  await pause(1500);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  // Profiled in both runs, so its own overhead is in the baseline too.
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Profiler.start');
  const metrics = async () => Object.fromEntries(((await cdp.send('Performance.getMetrics')).metrics).map((m) => [m.name, m.value]));
  const before = await metrics();
  const started = Date.now();
  await interact(user, INTERACTION_MS);
  const after = await metrics();
  const seconds = (Date.now() - started) / 1000;
  const { profile } = await cdp.send('Profiler.stop');
  const recorderMs = timeOnStack(profile, (url) => url.includes('/sdk/clips-'));
  const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number }).longTasks);
  await context.close();
  return { taskMs: (after.TaskDuration - before.TaskDuration) * 1000, scriptMs: (after.ScriptDuration - before.ScriptDuration) * 1000, recorderMs, longTasks, seconds };
}

export async function runRecorderBench(): Promise<string> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}`);
  const core = await buildScriptTag();
  const chunk = await buildClips();
  const mallard = await startMallard(core, chunk, version);
  const site = await startSite({ '/shop': SHOP });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const load = [loadavg()[0]];
  try {
    const on = { enabled: true, unmask: [], allow_media: false, accepting: true, full_elements: [], device: 'desktop', snapshots_taken: ['desktop:/shop'] };
    const off: Run[] = [];
    const onRuns: Run[] = [];
    for (let i = 0; i < PAIRS; i++) {
      off.push(await measured(browser, mallard, site.base, `svc_pub_off_${i}`));
      mallard.configs.set(`svc_pub_on_${i}`, on);
      onRuns.push(await measured(browser, mallard, site.base, `svc_pub_on_${i}`));
      load.push(loadavg()[0]);
    }

    // The clip: a rage click after the buffer has filled, the user carrying on meanwhile.
    const key = 'svc_pub_clip';
    mallard.configs.set(key, on);
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const user = new User(page, site.base);
    await user.open(`/shop?key=${key}&mallard=${encodeURIComponent(mallard.base)}`);
    await page.waitForFunction(() => 'MallardClips' in window);
    await interact(user, 25_000);
    await user.clicks('#broken', 4, 150);
    await interact(user, 6_000);
    const rage = () => mallard.signals(key).find((s) => s.type === 'rage_click');
    const find = () => mallard.uploads(key).find((u) => u.body.kind === 'clip' && u.body.signal_ids.includes(rage()?.id));
    for (let waited = 0; !find() && waited < 20_000; waited += 250) await pause(250);
    await context.close();
    const clip = find();
    if (!clip) throw new Error(`no clip of the rage click arrived (signals: ${mallard.signals(key).map((s) => s.type).join(', ')})`);
    const events = clip.body.events as { type: number; timestamp: number }[];
    const held = Buffer.byteLength(JSON.stringify(events));
    const compressed = gzipSync(clip.text).length;
    const span = (events[events.length - 1].timestamp - events[0].timestamp) / 1000;
    const covered = (clip.body.ended_at - clip.body.started_at) / 1000;

    const perSecond = (runs: Run[], k: 'taskMs' | 'scriptMs' | 'recorderMs') => median(runs.map((r) => r[k] / r.seconds));
    const extra = (k: 'taskMs' | 'scriptMs') => perSecond(onRuns, k) - perSecond(off, k);
    const row = (label: string, runs: Run[]) =>
      `| ${label} | ${perSecond(runs, 'taskMs').toFixed(1)} ms | ${perSecond(runs, 'scriptMs').toFixed(1)} ms | ${perSecond(runs, 'recorderMs').toFixed(2)} ms | ${median(runs.map((r) => r.longTasks))} | ${runs.map((r) => (r.taskMs / r.seconds).toFixed(0)).join(', ')} |`;
    return [
      `Chromium ${browser.version()}, 1280x720, the shop page (100 cards); ${PAIRS} alternating pairs of ${INTERACTION_MS / 1000} s of the same scripted interaction; load average ${Math.min(...load).toFixed(1)} to ${Math.max(...load).toFixed(1)} on the shared machine.`,
      '',
      '| build | bytes | gzip | budget |',
      '|---|---|---|---|',
      `| sdk.js (core) | ${core.length.toLocaleString('en')} | **${gzipSync(core).length.toLocaleString('en')}** | ${budgets.core.toLocaleString('en')} |`,
      `| clips-${version}.js (the chunk) | ${chunk.length.toLocaleString('en')} | **${gzipSync(chunk).length.toLocaleString('en')}** | ${budgets.clips.toLocaleString('en')} |`,
      '',
      'Main-thread time per second of interaction (medians): Chrome\'s TaskDuration (all main-thread work) and ScriptDuration between the start and the end of the interaction, and the time sampled (CPU profile, 250 µs) with the recorder\'s code on the stack:',
      '',
      '| page | main thread / s | script / s | recorder on the stack / s | long tasks | each run, main thread / s |',
      '|---|---|---|---|---|---|',
      row('clips off (core SDK only): the baseline', off),
      row('clips on', onRuns),
      `| the recorder: on less off | ${extra('taskMs').toFixed(1)} ms | ${extra('scriptMs').toFixed(1)} ms | **${perSecond(onRuns, 'recorderMs').toFixed(2)} ms** | | |`,
      '',
      '| the clip of a rage click after 25 s of interaction | |',
      '|---|---|',
      `| events (the buffer's whole content when it was cut) | ${events.length.toLocaleString('en')} events over ${span.toFixed(1)} s |`,
      `| the buffer's size: the events as JSON | **${kb(held)}** (bound 5 MB) |`,
      `| started_at to ended_at | ${covered.toFixed(1)} s |`,
      `| the upload, JSON / gzip (what is sent) | ${kb(Buffer.byteLength(clip.text))} / **${kb(compressed)}** (bound 150 kB) |`,
    ].join('\n');
  } finally {
    await browser.close();
    await mallard.close();
    await site.close();
  }
}
