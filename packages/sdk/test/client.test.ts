// The client end to end inside happy-dom: remote config, pageviews, click routing and
// precedence, batches as the server expects them, retries, consent, Do Not Track, sampling.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../src/client.ts';
import { DEFAULT_SIGNALS, resolveSettings } from '../src/config.ts';
import { Transport } from '../src/transport.ts';
import type { ClipSignal, ClipsHost, StartClips } from '../src/clips/host.ts';
import { html, place } from './helpers.ts';

interface Sent { url: string; body: Record<string, any>; headers: Record<string, string> }

function server(options: { config?: Record<string, unknown>; statuses?: number[] } = {}) {
  const sent: Sent[] = [];
  const configRequests: string[] = [];
  const statuses = [...(options.statuses ?? [])];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url.includes('/v1/sdk-config')) {
      configRequests.push(url);
      return new Response(JSON.stringify({ data: { sample_rate: 1, signals: {}, ignore_selectors: [], privacy: {}, ...options.config }, error: null }), { status: 200 });
    }
    const status = statuses.shift() ?? 202;
    if (status === 0) throw new TypeError('Failed to fetch');
    sent.push({ url, body: JSON.parse(String(init!.body)), headers: init!.headers as Record<string, string> });
    return new Response('{}', { status });
  });
  window.fetch = fetchMock as unknown as typeof fetch;
  return { sent, configRequests, fetchMock, events: () => sent.flatMap((s) => s.body.events) };
}

function clickAt(el: Element, x: number, y: number) {
  el.dispatchEvent(new MouseEvent('click', { bubbles: true, button: 0, detail: 1, clientX: x, clientY: y }));
}

const KEY = 'svc_pub_test';
let client: Client | null = null;
const realFetch = window.fetch;

let beacons: { url: string; body: string }[] = [];

beforeEach(() => {
  beacons = [];
  navigator.sendBeacon = (url: string | URL, body?: BodyInit | null) => { beacons.push({ url: String(url), body: String(body) }); return true; };
  localStorage.clear();
  sessionStorage.clear();
  history.replaceState({}, '', '/shop');
  html('<button id="broken">Buy</button><div data-mallard-ignore><button id="toggle">Toggle</button></div><a id="link" href="#next">Next</a>');
  place(document.getElementById('broken')!, 100, 100, 100, 40);
});
afterEach(() => {
  client?.shutdown();
  client = null;
  window.fetch = realFetch;
  vi.useRealTimers();
});

describe('client', () => {
  it('reads the remote config with the key and environment, then records a pageview with ids', async () => {
    const srv = server();
    client = new Client({ key: KEY, endpoint: 'https://m.example/', environment: 'staging' });
    await client.ready;
    await client.flush();
    expect(srv.configRequests).toEqual(['https://m.example/v1/sdk-config?key=svc_pub_test&env=staging']);
    expect(srv.sent).toHaveLength(1);
    const { url, body, headers } = srv.sent[0];
    expect(url).toBe('https://m.example/v1/ingest');
    expect(headers['content-type']).toMatch(/^text\/plain/);
    expect(body).toMatchObject({ key: KEY, env: 'staging', url: `${location.origin}/shop` });
    expect(body.sid).toMatch(/^[0-9a-f]{32}$/);
    expect(body.vid).toMatch(/^[0-9a-f]{32}$/);
    expect(body.events).toEqual([{ type: 'pageview', page: '/shop', ts: expect.any(Number), id: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
    expect(document.cookie).toBe('');
  });

  it('keeps the session across page loads and the visitor across sessions; a new session after 30 idle minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const srv = server();
    client = new Client({ key: KEY });
    await client.flush();
    client.shutdown();
    client = new Client({ key: KEY });
    await client.flush();
    client.shutdown();
    vi.advanceTimersByTime(30 * 60_000 + 1);
    client = new Client({ key: KEY });
    await client.flush();
    const [a, b, c] = srv.sent.map((s) => s.body);
    expect(b.sid).toBe(a.sid);
    expect(c.sid).not.toBe(a.sid);
    expect(new Set([a.vid, b.vid, c.vid]).size).toBe(1);
  });

  it('records SPA navigations as pageviews with the previous page; straight back is a u-turn', async () => {
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    history.pushState({}, '', '/shop/cart?coupon=x');
    history.replaceState({}, '', '/shop/cart#top');
    history.pushState({}, '', '/shop');
    await client.flush();
    expect(srv.events().map((e) => [e.type, e.page, e.referrer_page ?? e.signal_type])).toEqual([
      ['pageview', '/shop', undefined], ['pageview', '/shop/cart', '/shop'], ['pageview', '/shop', '/shop/cart'],
      ['signal', '/shop/cart', 'u_turn_navigation'],
    ]);
  });

  it('routes real clicks to the detectors: a rage burst is one rage_click, with hx/hy/vx/vy; ignored elements give nothing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    Object.assign(window, { innerWidth: 1000, innerHeight: 1000 });
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const seen: string[] = [];
    client.onFriction((s) => seen.push(`${s.type} ${s.element} ${s.label}`));
    for (let i = 0; i < 4; i++) clickAt(document.getElementById('broken')!, 125, 130);
    for (let i = 0; i < 4; i++) clickAt(document.getElementById('toggle')!, 5, 5);
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(seen).toEqual(['rage_click #broken Buy']);
    const signals = srv.events().filter((e) => e.type === 'signal');
    expect(signals).toEqual([expect.objectContaining({
      signal_type: 'rage_click', element: '#broken', label: 'Buy', page: '/shop', confidence: 1, count: 4,
      hx: 250, hy: 750, vx: 125, vy: 130,
    })]);
  });

  it('selecting text (triple-click) or clicking in editable text is no rage click; a selection elsewhere does not stop one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html('<p id="para">A paragraph the user selects</p><div id="editor" contenteditable="true"><p id="line">draft</p></div><button id="broken">Buy</button>');
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const para = document.getElementById('para')!;
    clickAt(para, 10, 10);
    getSelection()!.selectAllChildren(para); // what the second and third clicks of a triple-click do
    clickAt(para, 10, 10);
    clickAt(para, 10, 10);
    vi.advanceTimersByTime(5000);
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('line')!, 10, 60);
    vi.advanceTimersByTime(5000);
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('broken')!, 10, 90); // para stays selected
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().filter((e) => e.type === 'signal').map((e) => `${e.signal_type} ${e.element}`)).toEqual(['rage_click #broken']);
    getSelection()!.removeAllRanges();
  });

  it('a press on an inert control (targeted at its ancestor) feeds no rage or dead click', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html('<main id="main"><div inert><button id="send" onclick="1">Send</button></div></main>');
    place(document.getElementById('send')!, 100, 100, 80, 30);
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const main = document.getElementById('main')!;
    for (let i = 0; i < 3; i++) {
      main.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, button: 0, clientX: 120, clientY: 110 }));
      clickAt(main, 120, 110);
    }
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().filter((e) => e.type === 'signal').map((e) => `${e.signal_type} ${e.element}`)).toEqual(['disabled_element_attempt #send']);
  });

  it('Back into a page restored from the back-forward cache is a pageview from the page left, and a u-turn', async () => {
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: true }));
    // The next page is another document with its own SDK; this one is frozen meanwhile.
    History.prototype.replaceState.call(history, {}, '', '/next');
    const next = new Client({ key: KEY });
    await next.ready;
    next.shutdown();
    History.prototype.replaceState.call(history, {}, '', '/shop');
    window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: false })); // a normal load is no second pageview
    await client.flush();
    const sent = [...beacons.flatMap((b) => JSON.parse(b.body).events), ...srv.events()]; // leaving a page sends by beacon
    expect(sent.map((e) => [e.type, e.page, e.referrer_page ?? e.signal_type])).toEqual([
      // (this test's documents carry no referrer, so the page in between names none)
      ['pageview', '/shop', undefined], ['pageview', '/next', undefined], ['pageview', '/shop', '/next'], ['signal', '/next', 'u_turn_navigation'],
    ]);
  });

  it('a submit click nothing answers is a dead_end_submit, not a dead_click; with dead_end_submit off, a dead_click', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    html('<form><input id="msg"><button id="send">Send</button></form>');
    for (const config of [{}, { signals: { dead_end_submit: { enabled: false } } }]) {
      const srv = server({ config });
      client = new Client({ key: KEY });
      await client.ready;
      clickAt(document.getElementById('send')!, 5, 5);
      vi.advanceTimersByTime(5000);
      await client.flush();
      client.shutdown();
      expect(srv.events().filter((e) => e.type === 'signal').map((e) => `${e.signal_type} ${e.element}`)).toEqual([Object.keys(config).length ? 'dead_click #send' : 'dead_end_submit #send']);
    }
  });

  it('a drag (pressed and released apart) is no click', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const broken = document.getElementById('broken')!;
    for (let i = 0; i < 4; i++) {
      broken.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, button: 0, clientX: 105, clientY: 130 }));
      clickAt(broken, 125, 130);
    }
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().filter((e) => e.type === 'signal')).toEqual([]);
  });

  it('every detector can be switched off in the remote config', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const signals = Object.fromEntries(Object.keys(DEFAULT_SIGNALS).map((type) => [type, { enabled: false }]));
    expect(Object.keys(signals)).toHaveLength(16);
    const srv = server({ config: { signals } });
    client = new Client({ key: KEY });
    await client.ready;
    for (let i = 0; i < 4; i++) clickAt(document.getElementById('broken')!, 125, 130);
    for (let i = 0; i < 8; i++) document.dispatchEvent(new PointerEvent('pointermove', { clientX: i % 2 ? 100 : 200, clientY: 10 }));
    history.pushState({}, '', '/shop/a');
    history.pushState({}, '', '/shop');
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().filter((e) => e.type === 'signal')).toEqual([]);
  });

  it('sends manual signals, tracked events and identify calls; manual signals are announced and redacted', async () => {
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const seen: unknown[] = [];
    client.onFriction((s) => seen.push(s));
    client.signal('pricing_confusion', { element: '#broken', label: 'asked ann@example.com', confidence: 0.5 });
    client.signal('Not A Type');
    client.track('checkout_completed', { amount_cents: 9900 });
    client.identify('user-42');
    await client.flush();
    // The announced id is the sent signal event's (what a clip names).
    const signalId = srv.events()[1].id;
    expect(seen).toEqual([{ type: 'pricing_confusion', page: '/shop', element: '#broken', label: 'asked [redacted]', confidence: 0.5, id: signalId }]);
    expect(srv.events().slice(1).map(({ ts, id, ...rest }) => rest)).toEqual([
      { type: 'signal', signal_type: 'pricing_confusion', element: '#broken', label: 'asked [redacted]', confidence: 0.5, page: '/shop' },
      { type: 'track', name: 'checkout_completed', props: { amount_cents: 9900 }, page: '/shop' },
      { type: 'identify', user_ref: 'user-42', page: '/shop' },
    ]);
  });

  it('applies remote thresholds, switches and ignore selectors; local options win over remote ones', () => {
    const remote = { signals: { rage_click: { clicks: 5, enabled: false }, dead_click: { wait_ms: 3000 } }, ignore_selectors: ['.stepper'], sample_rate: 0.5 };
    const merged = resolveSettings({ key: KEY, signals: { rage_click: { enabled: true } }, ignoreSelectors: ['.carousel'] }, remote);
    expect(merged.signals.rage_click).toMatchObject({ enabled: true, clicks: 5, window_ms: 2000 });
    expect(merged.signals.dead_click.wait_ms).toBe(3000);
    expect(merged.ignoreSelectors).toEqual(['.stepper', '.carousel']);
    expect(merged.sampleRate).toBe(0.5);
    expect(resolveSettings({ key: KEY, signals: { dead_click: { wait_ms: -1 } } }).signals.dead_click.wait_ms).toBe(2000);
  });

  it('a detector switched off in the remote config does not run', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const srv = server({ config: { signals: { rage_click: { enabled: false }, dead_click: { enabled: false } } } });
    client = new Client({ key: KEY });
    await client.ready;
    for (let i = 0; i < 4; i++) clickAt(document.getElementById('broken')!, 125, 130);
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().filter((e) => e.type === 'signal')).toEqual([]);
  });

  it('retries with backoff on network errors, 429 and 5xx, keeping the same event ids', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const srv = server({ statuses: [0, 503, 429, 202] });
    client = new Client({ key: KEY });
    await client.ready;
    client.track('plan_viewed', { plan: 'pro' });
    await client.flush(); // network error: nothing recorded as sent
    expect(srv.sent).toHaveLength(0);
    for (let i = 0; i < 3; i++) {
      await vi.advanceTimersByTimeAsync(6 * 60_000);
    }
    expect(srv.sent.map((s) => s.body.events.length)).toEqual([2, 2, 2]);
    const ids = srv.sent.map((s) => s.body.events.map((e: { id: string }) => e.id).join());
    expect(new Set(ids).size).toBe(1);
    await vi.advanceTimersByTimeAsync(6 * 60_000);
    expect(srv.sent).toHaveLength(3); // accepted on the third try: nothing more to send
  });

  it('drops a batch the server refuses as invalid and stops for good on a refused key', async () => {
    const srv = server({ statuses: [400, 401] });
    client = new Client({ key: KEY });
    await client.flush();
    client.track('a');
    await client.flush();
    client.track('b');
    await client.flush();
    expect(srv.sent.map((s) => s.body.events.map((e: { type: string }) => e.type))).toEqual([['pageview'], ['track']]);
  });

  it('sends what is left with sendBeacon when the page goes away, closing open bursts first', async () => {
    const srv = server();
    client = new Client({ key: KEY });
    await client.flush();
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('broken')!, 125, 130);
    window.dispatchEvent(new Event('pagehide'));
    expect(beacons).toHaveLength(1);
    expect(beacons[0].url).toBe(`${location.origin}/v1/ingest`);
    expect(JSON.parse(beacons[0].body).events.map((e: { signal_type: string }) => e.signal_type)).toEqual(['rage_click']);
    expect(srv.sent).toHaveLength(1);
  });

  it('bounds the queue in memory while the server is away', async () => {
    const transport = new Transport({ url: 'https://m.example/v1/ingest', key: KEY, win: window, fetch: (async () => { throw new TypeError('offline'); }) as typeof fetch, maxQueue: 100 });
    transport.open = true;
    for (let i = 0; i < 250; i++) transport.push('a'.repeat(32), undefined, { type: 'track', ts: i, id: i.toString(16).padStart(16, '0'), page: '/', name: `e${i}` });
    await transport.flush();
    expect(transport.size).toBe(100);
    transport.stop();
  });
});

describe('consent, Do Not Track and sampling', () => {
  it('sends nothing before consent when consent is required, then everything after', async () => {
    const srv = server({ config: { privacy: { require_consent: true } } });
    client = new Client({ key: KEY });
    await client.flush();
    expect(srv.sent).toHaveLength(0);
    expect(localStorage.length).toBe(0);
    client.setConsent(true);
    await client.flush();
    expect(srv.events().map((e) => e.type)).toEqual(['pageview']);
  });

  it('withdrawn consent drops what was queued instead of sending it', async () => {
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    client.track('before_withdrawal');
    client.setConsent(false);
    expect(beacons).toHaveLength(0);
    await client.flush();
    expect(srv.sent).toHaveLength(0);
  });

  it('consent given again after a withdrawal resumes recording, without what happened in between', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const srv = server();
    client = new Client({ key: KEY });
    await client.ready;
    const seen: string[] = [];
    client.onFriction((s) => seen.push(s.type));
    client.setConsent(false);
    client.track('while_withdrawn');
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('broken')!, 125, 130);
    vi.advanceTimersByTime(5000);
    client.setConsent(true);
    await client.ready;
    client.track('after');
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('broken')!, 125, 130);
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().map((e) => e.name ?? e.signal_type ?? e.type)).toEqual(['pageview', 'after', 'rage_click']);
    expect(seen).toEqual(['rage_click']);
  });

  it('consent withdrawn and given again before the config is read starts once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const srv = server();
    client = new Client({ key: KEY, consent: 'required' });
    client.setConsent(false);
    client.setConsent(true);
    await client.ready;
    for (let i = 0; i < 3; i++) clickAt(document.getElementById('broken')!, 125, 130);
    vi.advanceTimersByTime(5000);
    await client.flush();
    expect(srv.events().map((e) => e.signal_type ?? e.type)).toEqual(['pageview', 'rage_click']);
  });

  it('a denied consent records nothing', async () => {
    const srv = server();
    client = new Client({ key: KEY, consent: 'required' });
    client.setConsent(false);
    await client.flush();
    client.track('x');
    await client.flush();
    expect(srv.sent).toHaveLength(0);
  });

  it('honours Do Not Track when configured, and only then', async () => {
    Object.defineProperty(navigator, 'doNotTrack', { value: '1', configurable: true });
    try {
      let srv = server();
      client = new Client({ key: KEY, respectDoNotTrack: true });
      await client.flush();
      expect(srv.sent).toHaveLength(0);
      client.shutdown();
      srv = server({ config: { privacy: { respect_dnt: true } } });
      client = new Client({ key: KEY });
      await client.flush();
      expect(srv.sent).toHaveLength(0);
      client.shutdown();
      srv = server();
      client = new Client({ key: KEY });
      await client.flush();
      expect(srv.sent).toHaveLength(1);
    } finally {
      Object.defineProperty(navigator, 'doNotTrack', { value: null, configurable: true });
    }
  });

  it('a sample rate of 0 records nothing; cookieless mode keeps no visitor id', async () => {
    let srv = server();
    client = new Client({ key: KEY, sampleRate: 0 });
    await client.flush();
    expect(srv.sent).toHaveLength(0);
    client.shutdown();
    localStorage.clear();
    srv = server({ config: { privacy: { cookieless: true } } });
    client = new Client({ key: KEY });
    await client.flush();
    expect(srv.sent[0].body.vid).toBeUndefined();
    expect(srv.sent[0].body.sid).toMatch(/^[0-9a-f]{32}$/);
    expect(localStorage.length).toBe(0);
  });
});

describe('the clips chunk', () => {
  type Win = Window & { MallardClips?: StartClips };
  const CLIPS_ON = { clips: { enabled: true, unmask: [], allow_media: false, accepting: true, full_elements: [], snapshots_taken: [], device: 'desktop' } };
  const scripts = () => [...document.querySelectorAll('script')].filter((s) => s.src.includes('clips'));
  afterEach(() => { delete (window as Win).MallardClips; });

  /** A stand-in for the chunk: records the host it was given and whether it was stopped. */
  function fakeChunk() {
    const started: ClipsHost[] = [];
    let stops = 0;
    (window as Win).MallardClips = (host) => { started.push(host); return () => { stops++; }; };
    return { started, stops: () => stops };
  }

  it('with clips off in the config (or no clips at all) nothing is loaded or started', async () => {
    const chunk = fakeChunk();
    const append = vi.spyOn(document.head, 'append');
    for (const config of [{}, { clips: { enabled: false } }]) {
      server({ config });
      client = new Client({ key: KEY, endpoint: 'https://m.example' });
      await client.ready;
      client.shutdown();
    }
    expect(chunk.started).toEqual([]);
    expect(append).not.toHaveBeenCalled();
    append.mockRestore();
  });

  it('the page can refuse clips (clips: false) whatever the config says', async () => {
    const chunk = fakeChunk();
    server({ config: CLIPS_ON });
    client = new Client({ key: KEY, clips: false });
    await client.ready;
    expect(chunk.started).toEqual([]);
  });

  it('loads /sdk/clips-<version>.js from the endpoint once clips are on, and starts it when it has loaded', async () => {
    server({ config: CLIPS_ON });
    // Kept out of the document: happy-dom would fetch it.
    const append = vi.spyOn(document.head, 'append').mockImplementation(() => undefined);
    client = new Client({ key: KEY, endpoint: 'https://m.example/', environment: 'staging' });
    await client.ready;
    expect(append).toHaveBeenCalledTimes(1);
    const script = append.mock.calls[0][0] as HTMLScriptElement;
    expect(script.src).toBe('https://m.example/sdk/clips-dev.js');
    expect(script.async).toBe(true);
    append.mockRestore();
    const chunk = fakeChunk();
    script.onload!(new Event('load'));
    expect(chunk.started).toHaveLength(1);
    expect(chunk.started[0]).toMatchObject({ endpoint: 'https://m.example', key: KEY, env: 'staging', config: CLIPS_ON.clips });
    expect(scripts()).toEqual([]);
  });

  it('hands the chunk the signals with the ids of the events sent, the session, a flush; stops it when consent is withdrawn', async () => {
    const srv = server({ config: CLIPS_ON });
    const chunk = fakeChunk();
    client = new Client({ key: KEY });
    await client.ready;
    const host = chunk.started[0];
    const seen: ClipSignal[] = [];
    host.on((s) => seen.push(s));
    client.signal('dead_click', { element: '#broken' });
    await host.flush();
    const sent = srv.events().find((e) => e.type === 'signal')!;
    expect(seen).toEqual([expect.objectContaining({ id: sent.id, type: 'dead_click', element: '#broken', page: '/shop' })]);
    expect(host.sid()).toBe(srv.sent[0].body.sid);
    expect(host.vid()).toBe(srv.sent[0].body.vid);
    client.setConsent(false);
    expect(chunk.stops()).toBe(1);
    client.setConsent(true);
    await client.ready;
    await vi.waitFor(() => expect(chunk.started).toHaveLength(2));
    client.shutdown();
    client = null;
    expect(chunk.stops()).toBe(2);
  });

  it('a chunk that throws on start does not stop detection', async () => {
    const srv = server({ config: CLIPS_ON });
    (window as Win).MallardClips = () => { throw new Error('broken recorder'); };
    client = new Client({ key: KEY });
    await client.ready;
    client.signal('dead_click', { element: '#broken' });
    await client.flush();
    expect(srv.events().map((e) => e.type)).toEqual(['pageview', 'signal']);
  });
});
