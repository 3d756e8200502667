// Friction clips and a page snapshot for the dashboard's browser suite, made the way the SDK
// makes them: a small checkout page laid out in Chromium and recorded with rrweb's own
// recorder (its full snapshot is the page snapshot; its events, a click and a marker naming the
// signal, are the clip). Until the server's clip routes land in this tree, `answerClipRoutes`
// answers them (and the page's heatmap points) in the browser with Playwright's page.route;
// to drive the real routes instead, store these fixtures through the server and drop that call.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';

export const FIXTURE_PAGE = '/fixture/checkout';
export const FIXTURE_CLIP_ID = 'clp_0123456789abcdef0123';
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
  clip: { id: string; session_id: string; page: string; device: string; signal_ids: string[]; signal_types: string[]; started_at: string; ended_at: string; bytes: number };
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
      clip: {
        id: FIXTURE_CLIP_ID, session_id: FIXTURE_SESSION_ID, page: FIXTURE_PAGE, device: 'desktop', signal_ids: [FIXTURE_SIGNAL_ID], signal_types: ['rage_click'],
        started_at: new Date(first).toISOString(), ended_at: new Date(last).toISOString(), bytes: JSON.stringify(events).length,
      },
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
    page: { page: FIXTURE_PAGE, count: page.length, points: page },
    element: (selector: string) => {
      const points = [...button, ...card].filter((p) => p.el === selector).map(({ rx, ry, signal }) => ({ rx, ry, signal }));
      return { page: FIXTURE_PAGE, selector, count: points.length, points };
    },
  };
}

const envelope = (route: Route, status: number, data: unknown, error: { code: string; message: string } | null = null) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ data, error: error && { ...error, status } }) });

/**
 * Answers the clip routes in `page` from the fixtures: the clip list for the fixture's issue or
 * session (any other: none), the clip with its events, the snapshot of the fixture page (any
 * other: 404 not_found), and the fixture page's heatmaps. With `clipsOn`, the site's SDK config
 * reads as clips on (the server's PATCH takes `clips` once its side lands; then set it there).
 * Everything else reaches the server.
 */
export async function answerClipRoutes(page: Page, f: ClipFixtures, clipsFor: { issue_id?: string; session_id?: string }, clipsOn = true) {
  const heat = fixtureHeat(f);
  if (clipsOn) {
    await page.route(/\/v1\/manage\/sdk-config(\?|$)/, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const real = await route.fetch();
      const body = await real.json() as { data: { site_id: string; environments: { environment: string; config: Record<string, unknown> }[] } };
      const environments = body.data.environments.length > 0 ? body.data.environments : [{ environment: 'production', config: {}, updated_at: null }];
      return envelope(route, 200, { ...body.data, environments: environments.map((e) => ({ ...e, config: { ...e.config, clips: { enabled: true, unmask: [], allow_media: false } } })) });
    });
  }
  await page.route(/\/v1\/query\/(clips|page-snapshot|page-heatmap|element-heatmap)(\/|\?|$)/, (route) => {
    const url = new URL(route.request().url());
    const q = url.searchParams;
    if (url.pathname === `/v1/query/clips/${FIXTURE_CLIP_ID}`) return envelope(route, 200, { ...f.clip, events: f.events });
    if (url.pathname.startsWith('/v1/query/clips/')) return envelope(route, 404, null, { code: 'not_found', message: 'No such clip' });
    if (url.pathname === '/v1/query/clips') {
      const ours = (clipsFor.issue_id && q.get('issue_id') === clipsFor.issue_id) || (clipsFor.session_id && q.get('session_id') === clipsFor.session_id);
      return envelope(route, 200, { clips: ours ? [f.clip] : [], total: ours ? 1 : 0, offset: 0, limit: Number(q.get('limit') ?? 50) });
    }
    const isFixture = q.get('page') === FIXTURE_PAGE;
    if (url.pathname === '/v1/query/page-snapshot') {
      return isFixture && q.get('device') === 'desktop' ? envelope(route, 200, f.snapshot) : envelope(route, 404, null, { code: 'not_found', message: 'No snapshot of this page yet' });
    }
    if (!isFixture) return route.continue();
    if (url.pathname === '/v1/query/page-heatmap') return envelope(route, 200, heat.page);
    return envelope(route, 200, heat.element(q.get('selector') ?? ''));
  });
}
