// Friction clips and a page snapshot for the dashboard's browser suite, made the way the SDK
// makes them: a small checkout page laid out in Chromium and recorded with rrweb's own
// recorder (its full snapshot is the page snapshot; its events, a click and a marker naming the
// signal, are the clip). `storeClipFixtures` stores them through the server's real routes, as
// the SDK would: the sessions and signal events through POST /v1/ingest (presses on the page,
// on desktop and on mobile, and the session the clip covers), then the snapshot and the clip
// through POST /v1/ingest/clips.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';

export const FIXTURE_PAGE = '/fixture/checkout';
export const FIXTURE_SIGNAL_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
export const FIXTURE_SESSION_ID = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
/** A global a script planted in the snapshot would set, were it ever run. */
export const PLANTED_GLOBAL = '__mallardPlanted';
export const VIEWPORT = { width: 1280, height: 720 };

/** The recorded page: a card holding the order button (boxes that overlap), a paragraph, a colour only its CSS gives. */
const CHECKOUT_HTML = `<!doctype html><html><head><title>Checkout</title><style>
body { margin: 0; font: 16px sans-serif; }
header { height: 120px; background: rgb(20, 40, 90); }
#checkout-card { margin: 60px 0 0 200px; width: 640px; padding: 40px; border: 1px solid #ccc; }
#place-order { display: block; width: 240px; height: 56px; margin-left: 320px; background: rgb(0, 120, 60); color: #fff; border: 0; }
.tall { height: 1400px; }
</style></head><body><header>Shop</header>
<div id="checkout-card"><p id="summary">Your order: 2 items, 48.00</p><button id="place-order" type="button">Place order</button></div>
<div class="tall" style="background: rgb(250, 250, 240)">Below the fold</div></body></html>`;

export interface ClipFixtures {
  snapshot: { page: string; device: string; width: number; height: number; taken_at: string; snapshot: { type: number; timestamp: number; data: { node: unknown; initialOffset: { top: number; left: number } } } };
  /** The clip as uploaded: the SDK's id, the session and signal it covers, its span (ISO 8601). */
  clip: { id: string; session_id: string; signal_ids: string[]; started_at: string; ended_at: string };
  events: { type: number; timestamp: number; data?: unknown }[];
  /** Where the signal is in the clip (ms from its first event), by the recorded marker. */
  signalMs: number;
  /** The order button's box in the recorded page (CSS pixels). */
  button: { x: number; y: number; width: number; height: number };
}

type RecordedNode = { type: number; id: number; tagName?: string; attributes?: Record<string, unknown>; childNodes?: RecordedNode[]; textContent?: string };

const rrwebBundle = () => readFileSync(join(dirname(createRequire(import.meta.url).resolve('rrweb')), 'rrweb.umd.min.cjs'), 'utf8');

/** Plants a script and an inline handler in the snapshot's body: a safe rebuild runs neither. */
function plantScripts(node: RecordedNode) {
  const body = node.childNodes?.find((n) => n.tagName === 'html')?.childNodes?.find((n) => n.tagName === 'body');
  if (!body?.childNodes) throw new Error('the snapshot has no body');
  body.childNodes.push(
    { type: 2, id: 900_001, tagName: 'script', attributes: {}, childNodes: [{ type: 3, id: 900_002, textContent: `window.${PLANTED_GLOBAL} = 'script'` }] },
    { type: 2, id: 900_003, tagName: 'div', attributes: { onclick: `window.${PLANTED_GLOBAL} = 'handler'`, onmouseover: `window.${PLANTED_GLOBAL} = 'handler'` }, childNodes: [] },
  );
}

/** Records the checkout page in a blank tab: the full snapshot, a click on the order button and the signal's marker. */
export async function recordClipFixtures(browser: Browser): Promise<ClipFixtures> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  try {
    await page.setContent(CHECKOUT_HTML);
    await page.addScriptTag({ content: rrwebBundle() });
    await page.evaluate(() => {
      const w = window as unknown as { rrweb: { record: (o: unknown) => () => void }; events: unknown[]; stop: () => void };
      w.events = [];
      w.stop = w.rrweb.record({ emit: (e: unknown) => w.events.push(e), maskAllInputs: true });
    });
    const button = await page.evaluate(() => { const r = document.querySelector('#place-order')!.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; });
    await page.mouse.move(100, 100);
    await page.waitForTimeout(400); // real time passes between the recorded steps, as on a page
    await page.mouse.click(button.x + button.width * 0.75, button.y + button.height / 2);
    await page.evaluate((id) => (window as unknown as { rrweb: { record: { addCustomEvent: (t: string, p: unknown) => void } } }).rrweb.record.addCustomEvent('mallard-signal', { signal_ids: [id], signal_type: 'rage_click' }), FIXTURE_SIGNAL_ID);
    await page.waitForTimeout(600);
    await page.mouse.move(300, 500);
    await page.waitForTimeout(300);
    const events = await page.evaluate(() => { const w = window as unknown as { events: { type: number; timestamp: number; data?: unknown }[]; stop: () => void }; w.stop(); return w.events; });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const full = events.find((e) => e.type === 2) as ClipFixtures['snapshot']['snapshot'] | undefined;
    if (!full) throw new Error('rrweb recorded no full snapshot');
    const snapshotEvent = structuredClone(full);
    plantScripts(snapshotEvent.data.node as RecordedNode);
    const first = events[0].timestamp, last = events[events.length - 1].timestamp;
    const marker = events.find((e) => e.type === 5);
    if (!marker) throw new Error('rrweb recorded no marker');
    return {
      snapshot: { page: FIXTURE_PAGE, device: 'desktop', width: VIEWPORT.width, height, taken_at: new Date(first).toISOString(), snapshot: snapshotEvent },
      clip: { id: randomBytes(16).toString('hex'), session_id: FIXTURE_SESSION_ID, signal_ids: [FIXTURE_SIGNAL_ID], started_at: new Date(first).toISOString(), ended_at: new Date(last).toISOString() },
      events, signalMs: marker.timestamp - first, button,
    };
  } finally {
    await context.close();
  }
}

/** Presses on the fixture page: the card (around the button) and the button, in the window (vx, vy) and in the element (rx, ry). */
export function fixtureHeat(f: ClipFixtures) {
  const vx = (x: number) => x / VIEWPORT.width, vy = (y: number) => y / VIEWPORT.height;
  const b = f.button;
  const inButton = [[0.5, 0.5], [0.8, 0.3], [0.2, 0.7], [0.95, 0.9], [0.6, 0.1]];
  const button = inButton.map(([rx, ry]) => ({ rx, ry, vx: vx(b.x + rx * b.width), vy: vy(b.y + ry * b.height), signal: 'rage_click', el: '#place-order' }));
  const card = [[0.1, 0.2], [0.3, 0.1], [0.15, 0.6]].map(([rx, ry]) => ({ rx, ry, vx: vx(200 + rx * 722), vy: vy(180 + ry * 230), signal: 'dead_click', el: '#checkout-card' }));
  const loose = [{ vx: 0.9, vy: 0.05, signal: 'dead_click', el: '#not-in-the-page' }, { vx: 0.92, vy: 0.06, signal: 'dead_click', el: '#not-in-the-page' }];
  const page = [...button, ...card, ...loose].map(({ vx: x, vy: y, signal, el }) => ({ vx: x, vy: y, signal, el }));
  return {
    /** Every press as sent: the loose ones have no point in their element. */
    presses: [...button, ...card, ...loose] as { vx: number; vy: number; rx?: number; ry?: number; signal: string; el: string }[],
    page: { page: FIXTURE_PAGE, count: page.length, points: page },
    element: (selector: string) => {
      const points = [...button, ...card].filter((p) => p.el === selector).map(({ rx, ry, signal }) => ({ rx, ry, signal }));
      return { page: FIXTURE_PAGE, selector, count: points.length, points };
    },
  };
}


const WINDOWS_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The issue the clip's signal belongs to: its type, on its element and page (how issues group signals). */
export interface IssueKey { type: string; element_selector: string; page: string }

async function post(url: string, secretKey: string, ua: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', 'user-agent': ua }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`${new URL(url).pathname}: ${res.status} ${text}`);
  return JSON.parse(text) as { data: { accepted?: number; stored?: boolean; reason?: string } };
}

/**
 * Stores the fixtures through the server (clips must be on for the site): the fixture page's
 * presses from a desktop and a mobile session (fixtureHeat's, on the wire's 0..1000 scale), the
 * page snapshot (desktop only), and the clip, covering one signal of `issue` in session
 * FIXTURE_SESSION_ID at the moment rrweb's marker names.
 */
export async function storeClipFixtures(baseUrl: string, secretKey: string, f: ClipFixtures, issue: IssueKey) {
  const first = Date.parse(f.clip.started_at);
  const heat = fixtureHeat(f);
  const ingest = async (sid: string, ua: string, viewport: { width: number; height: number }, events: Record<string, unknown>[]) => {
    const { data } = await post(`${baseUrl}/v1/ingest`, secretKey, ua, { sid, vid: hex(16), ts: Date.now(), meta: { ua, viewport_w: viewport.width, viewport_h: viewport.height }, events });
    if (data.accepted !== events.length) throw new Error(`ingest accepted ${data.accepted} of ${events.length} events`);
  };
  const presses = (at: number) => [
    { type: 'pageview', ts: at, page: FIXTURE_PAGE, id: hex(8) },
    ...heat.presses.map((p, i) => ({
      type: 'signal', ts: at + 100 + i * 10, id: hex(8), page: FIXTURE_PAGE, signal_type: p.signal, element: p.el, label: p.el, confidence: 1,
      vx: p.vx * 1000, vy: p.vy * 1000, ...(p.rx === undefined ? {} : { hx: p.rx * 1000, hy: p.ry! * 1000 }),
    })),
  ];
  const desktopSid = hex(16);
  await ingest(desktopSid, WINDOWS_UA, VIEWPORT, presses(first - 6000));
  await ingest(hex(16), IPHONE_UA, { width: 390, height: 844 }, presses(first - 6000));
  await ingest(FIXTURE_SESSION_ID, WINDOWS_UA, VIEWPORT, [
    { type: 'pageview', ts: first - 1000, page: issue.page, id: hex(8) },
    { type: 'signal', ts: first + f.signalMs, id: FIXTURE_SIGNAL_ID, page: issue.page, signal_type: issue.type, element: issue.element_selector, label: 'Place order', confidence: 1 },
  ]);
  const upload = async (body: Record<string, unknown>) => {
    const { data } = await post(`${baseUrl}/v1/ingest/clips`, secretKey, WINDOWS_UA, { meta: { ua: WINDOWS_UA, viewport_w: VIEWPORT.width, viewport_h: VIEWPORT.height }, ...body });
    if (!data.stored) throw new Error(`${body.kind} not stored: ${data.reason}`);
  };
  const meta = f.events.find((e) => e.type === 4);
  await upload({
    sid: desktopSid, id: hex(16), kind: 'snapshot', page: FIXTURE_PAGE, started_at: first, ended_at: first,
    width: f.snapshot.width, height: f.snapshot.height, events: [...(meta ? [meta] : []), f.snapshot.snapshot],
  });
  await upload({
    sid: FIXTURE_SESSION_ID, id: f.clip.id, kind: 'clip', page: issue.page, signal_ids: f.clip.signal_ids,
    started_at: first, ended_at: Date.parse(f.clip.ended_at), width: VIEWPORT.width, height: VIEWPORT.height, events: f.events,
  });
}
