// The clips recorder's handling of the site's config and of the server's answers: what is
// masked and blocked (before anything leaves), snapshots once per page, device and UTC day,
// and uploads (gzip, one at a time, 404 and 429 retried once, budget and refusals).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { privacy, scrubEvent, stripQuery, validSelectors } from '../src/clips/privacy.ts';
import { rememberSnapshot, utcDay, wantsSnapshot } from '../src/clips/snapshots.ts';
import { KEEPALIVE_MAX, MAX_WAITING, outcomeOf, RETRY_404_MS, Uploader, type UploadBody } from '../src/clips/upload.ts';
import { html } from './helpers.ts';

describe('privacy', () => {
  it('blocks media and frames by default and data-mallard-block always; allow_media lets media through', () => {
    html('<img id="i" alt="x"><video id="v"></video><svg><image id="s"></image></svg><object id="f"></object><canvas id="c"></canvas><div data-mallard-block><p id="b">secret</p></div><p id="p">text</p>');
    const strict = privacy({}, document).blockSelector;
    const open = privacy({ allow_media: true, unmask: ['[data-mallard-block]', '#b'] }, document).blockSelector;
    const blocked = (selector: string) => ['i', 'v', 's', 'f', 'c', 'p'].filter((id) => document.getElementById(id)!.matches(selector));
    expect(blocked(strict)).toEqual(['i', 'v', 's', 'f', 'c']);
    expect(blocked(open)).toEqual(['f', 'c']);
    expect(document.querySelector('[data-mallard-block]')!.matches(open)).toBe(true);
  });

  it('masks every text and input value, except under the site unmask selectors (never passwords, never blocked content)', () => {
    html('<p id="masked">Hello Ann</p><section class="public"><p id="open">Hello Bob</p><input id="q" value="shoes"><input id="pw" type="password"></section><div class="public" data-mallard-block><p id="blocked">x</p></div>');
    const p = privacy({ unmask: ['.public', 'a)', 42 as unknown as string] }, document);
    const el = (id: string) => document.getElementById(id)!;
    expect(p.maskTextFn('Hello Ann', el('masked'))).toBe('***** ***');
    expect(p.maskTextFn('Hello Bob', el('open'))).toBe('Hello Bob');
    expect(p.maskTextFn('Hello', null)).toBe('*****');
    expect(p.maskInputFn('shoes', el('q'))).toBe('shoes');
    expect(p.maskInputFn('hunter2', el('pw'))).toBe('*******');
    el('q').setAttribute('type', 'file');
    expect(p.maskInputFn('C:\\fakepath\\cv.pdf', el('q'))).toBe('*'.repeat(18));
    expect(p.unmasked(el('blocked'))).toBe(false);
    expect(privacy({}, document).maskInputFn('shoes', el('q'))).toBe('*****');
  });

  it('keeps only the selectors the browser can parse', () => {
    expect(validSelectors(['.a', 'a)', 'p[', '', 3, '#b > c'], document)).toEqual(['.a', '#b > c']);
    expect(validSelectors('.a', document)).toEqual([]);
  });

  it('masks text attributes in full snapshots and mutations, input events, strips link queries and the page URL query', () => {
    html('<div class="public"><a id="open" title="Open title">x</a></div><button id="b" title="Secret title">x</button>');
    const p = privacy({ unmask: ['.public'] }, document);
    const nodes = new Map<number, Node>([[1, document.getElementById('b')!], [2, document.getElementById('open')!]]);
    const nodeOf = (id: number) => nodes.get(id) ?? null;
    const full = {
      type: 2,
      data: { node: { type: 0, childNodes: [
        { id: 1, type: 2, tagName: 'button', attributes: { title: 'Secret title', 'aria-label': 'Pay Ann', class: 'btn', style: 'color:red' }, childNodes: [] },
        { id: 2, type: 2, tagName: 'a', attributes: { title: 'Open title', href: 'https://shop.example/reset?token=abc#x' }, childNodes: [] },
        { id: 3, type: 2, tagName: 'img', attributes: { alt: 'Ann at the beach', src: '/a.png?sig=1' }, childNodes: [] },
        { id: 4, type: 2, tagName: 'link', attributes: { href: '/style.css?v=2', rel: 'stylesheet' }, childNodes: [] },
        { id: 5, type: 2, tagName: 'input', attributes: { type: 'submit', value: 'Pay Ann now' }, childNodes: [] },
      ] } },
    };
    scrubEvent(full, p, nodeOf);
    const [button, link, img, css, submit] = full.data.node.childNodes.map((n) => n.attributes);
    expect(button).toEqual({ title: '****** *****', 'aria-label': '*** ***', class: 'btn', style: 'color:red' });
    expect(link).toEqual({ title: 'Open title', href: 'https://shop.example/reset' });
    expect(img).toEqual({ alt: '*** ** *** *****', src: '/a.png?sig=1' });
    expect(css).toEqual({ href: '/style.css?v=2', rel: 'stylesheet' });
    expect(submit).toEqual({ type: 'submit', value: '*** *** ***' });

    const mutation = { type: 3, data: { source: 0, texts: [], removes: [],
      adds: [{ parentId: 1, node: { id: 9, type: 2, tagName: 'span', attributes: { placeholder: 'Your name' }, childNodes: [] } }],
      attributes: [{ id: 1, attributes: { title: 'New secret', 'data-state': 'open' } }, { id: 2, attributes: { title: 'Open again', href: '/x?y=1' } }] } };
    scrubEvent(mutation, p, nodeOf);
    expect(mutation.data.adds[0].node.attributes).toEqual({ placeholder: '**** ****' });
    expect(mutation.data.attributes).toEqual([
      { id: 1, attributes: { title: '*** ******', 'data-state': 'open' } },
      { id: 2, attributes: { title: 'Open again', href: '/x' } },
    ]);

    html('<div class="public"><input id="q"><input id="f" type="file"></div><input id="n">');
    const inputs = new Map<number, Node>([[1, document.getElementById('q')!], [2, document.getElementById('f')!], [3, document.getElementById('n')!]]);
    const typed = [1, 2, 3].map((id) => ({ type: 3, data: { source: 5, id, text: id === 2 ? 'C:\\fakepath\\cv.pdf' : 'shoes', isChecked: false } }));
    for (const e of typed) scrubEvent(e, p, (id) => inputs.get(id) ?? null);
    expect(typed.map((e) => e.data.text)).toEqual(['shoes', '*'.repeat(18), '*****']);

    const meta = { type: 4, data: { href: 'https://shop.example/checkout?email=ann@example.com#top', width: 1280, height: 720 } };
    scrubEvent(meta, p, nodeOf);
    expect(meta.data.href).toBe('https://shop.example/checkout');
    expect(stripQuery('/a#b?c')).toBe('/a');
    expect(stripQuery('mailto:ann@example.com?subject=hi')).toBe('mailto:');
    expect(stripQuery(' TEL:+44 20 7946 0000')).toBe('TEL:');
  });
});

describe('snapshots', () => {
  afterEach(() => localStorage.clear());
  const now = Date.UTC(2026, 10, 28, 23, 59);

  it('wanted once per page, device and UTC day: not when the server has it, not twice from this browser', () => {
    const config = { device: 'desktop', snapshots_taken: ['desktop:/pricing', 'mobile:/checkout'] };
    expect(wantsSnapshot(config, '/pricing', localStorage, now)).toBe(false);
    expect(wantsSnapshot(config, '/checkout', localStorage, now)).toBe(true);
    rememberSnapshot(config, '/checkout', localStorage, now);
    expect(wantsSnapshot(config, '/checkout', localStorage, now)).toBe(false);
    expect(wantsSnapshot({ ...config, device: 'mobile' }, '/cart', localStorage, now)).toBe(true);
    // A new UTC day wants it again.
    expect(utcDay(now + 60_000)).toBe('2026-11-29');
    expect(wantsSnapshot(config, '/checkout', localStorage, now + 60_000)).toBe(true);
  });

  it('survives storage that is garbage or missing', () => {
    localStorage.setItem('mallard_snapshots', '{nope');
    expect(wantsSnapshot({ device: 'desktop' }, '/a', localStorage, now)).toBe(true);
    expect(wantsSnapshot({ device: 'desktop' }, '/a', null, now)).toBe(true);
    rememberSnapshot({ device: 'desktop' }, '/a', null, now);
  });
});

describe('uploads', () => {
  const body = (id = 'a'.repeat(32)): UploadBody => ({
    key: 'svc_pub_x', sid: 'b'.repeat(32), id, kind: 'clip', page: '/checkout', meta: { viewport_w: 1, viewport_h: 1, ua: 'test' },
    signal_ids: ['c'.repeat(16)], started_at: 1, ended_at: 2, width: 1, height: 1, events: [{ type: 4, timestamp: 1, data: {} }],
  });
  const answer = (status: number, data?: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ data: data ?? null, error: null }), { status, headers });

  function setup(answers: (Response | Error)[]) {
    const calls: { url: string; init: RequestInit; at: number }[] = [];
    const slept: number[] = [];
    const order: string[] = [];
    let clock = 0;
    const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
      calls.push({ url: String(url), init: init!, at: clock });
      order.push('fetch');
      const next = answers.shift() ?? answer(202, { id: 'x', stored: true, bytes: 1 });
      if (next instanceof Error) throw next;
      return next;
    });
    const uploader = new Uploader({
      url: 'https://m.example/v1/ingest/clips', fetch: fetch as unknown as typeof globalThis.fetch,
      flush: async () => { order.push('flush'); },
      sleep: async (ms) => { slept.push(ms); clock += ms; },
    });
    return { uploader, calls, slept, order };
  }

  it('reads the answer: stored, budget, other polite noes, stop on 401/403, drop on errors', () => {
    expect(outcomeOf(202, { data: { stored: true } })).toBe('stored');
    expect(outcomeOf(202, { data: { stored: false, reason: 'budget' } })).toBe('budget');
    for (const reason of ['duplicate', 'element_cap', 'snapshot_exists']) expect(outcomeOf(202, { data: { stored: false, reason } })).toBe('refused');
    expect(outcomeOf(202, null)).toBe('dropped');
    expect(outcomeOf(401, null)).toBe('stop');
    expect(outcomeOf(403, null)).toBe('stop');
    for (const status of [400, 404, 413, 429, 500]) expect(outcomeOf(status, null)).toBe('dropped');
  });

  it('sends gzip with Content-Encoding after flushing the core queue', async () => {
    const { uploader, calls, order } = setup([]);
    expect(await uploader.send(body())).toBe('stored');
    expect(order).toEqual(['flush', 'fetch']);
    const { url, init } = calls[0];
    expect(url).toBe('https://m.example/v1/ingest/clips');
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('omit');
    expect((init.headers as Record<string, string>)['content-encoding']).toBe('gzip');
    const sent = gunzipSync(Buffer.from(await (init.body as Blob).arrayBuffer())).toString('utf8');
    expect(JSON.parse(sent)).toEqual(body());
  });

  it('at exit: sends at once with keepalive, gzip-compressed synchronously, only what fits the keepalive limit', () => {
    const { uploader, calls, order } = setup([]);
    expect(uploader.atExit(body())).toBe(true);
    // Handed to fetch before atExit returned: nothing waits for a later task (the page is going away).
    expect(calls).toHaveLength(1);
    expect(order).toEqual(['fetch']);
    const { url, init } = calls[0];
    expect(url).toBe('https://m.example/v1/ingest/clips');
    expect(init).toMatchObject({ method: 'POST', credentials: 'omit', keepalive: true });
    expect((init.headers as Record<string, string>)['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(init.body as Uint8Array).toString('utf8'))).toEqual(body());
    // Too large once compressed (random text does not shrink): not sent at all.
    const noise = Array.from({ length: 20000 }, () => Math.random().toString(36).slice(2)).join('');
    const large = { ...body(), events: [{ type: 4, timestamp: 1, data: { noise } }] };
    expect(noise.length).toBeGreaterThan(KEEPALIVE_MAX);
    expect(uploader.atExit(large)).toBe(false);
    expect(calls).toHaveLength(1);
    // A closed uploader (consent withdrawn) sends nothing; a fetch that throws is not the page's problem.
    uploader.close();
    expect(uploader.atExit(body())).toBe(false);
    const broken = new Uploader({ url: 'https://m.example/v1/ingest/clips', fetch: () => { throw new TypeError('keepalive quota'); }, flush: async () => undefined });
    expect(broken.atExit(body())).toBe(false);
  });

  it('falls back to plain JSON where CompressionStream is missing', async () => {
    vi.stubGlobal('CompressionStream', undefined);
    try {
      const { uploader, calls } = setup([]);
      expect(await uploader.send(body())).toBe('stored');
      expect((calls[0].init.headers as Record<string, string>)['content-encoding']).toBeUndefined();
      expect(JSON.parse(calls[0].init.body as string)).toEqual(body());
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('retries a 404 once after ~3 s, flushing again, then drops', async () => {
    const again = setup([answer(404), answer(202, { stored: true })]);
    expect(await again.uploader.send(body())).toBe('stored');
    expect(again.slept).toEqual([RETRY_404_MS]);
    expect(again.order).toEqual(['flush', 'fetch', 'flush', 'fetch']);
    const gone = setup([answer(404), answer(404), answer(202, { stored: true })]);
    expect(await gone.uploader.send(body())).toBe('dropped');
    expect(gone.calls).toHaveLength(2);
  });

  it('honours Retry-After on a 429 once', async () => {
    const { uploader, slept, calls } = setup([answer(429, null, { 'retry-after': '7' }), answer(429, null, { 'retry-after': '7' })]);
    expect(await uploader.send(body())).toBe('dropped');
    expect(slept).toEqual([7000]);
    expect(calls).toHaveLength(2);
    const long = setup([answer(429, null, { 'retry-after': '3600' })]);
    expect(await long.uploader.send(body())).toBe('dropped');
    expect(long.calls).toHaveLength(1);
  });

  it('never throws: a network error or an unreadable answer is a drop', async () => {
    const { uploader } = setup([new TypeError('Failed to fetch'), new Response('not json', { status: 202 })]);
    expect(await uploader.send(body())).toBe('dropped');
    expect(await uploader.send(body())).toBe('dropped');
  });

  it('has one upload in flight at a time, a few waiting, and sends nothing once closed', async () => {
    let inFlight = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const fetch = vi.fn(async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => release.push(resolve));
      inFlight--;
      return answer(202, { stored: true });
    });
    const uploader = new Uploader({ url: 'https://m.example/v1/ingest/clips', fetch: fetch as unknown as typeof globalThis.fetch, flush: async () => undefined });
    const sends = Array.from({ length: MAX_WAITING + 2 }, (_, i) => uploader.send(body(String(i).repeat(32))));
    expect(await sends[MAX_WAITING + 1]).toBe('dropped');
    while (fetch.mock.calls.length < MAX_WAITING) {
      await vi.waitFor(() => expect(release.length).toBeGreaterThan(0));
      release.shift()!();
    }
    expect(await Promise.all(sends.slice(0, MAX_WAITING))).toEqual(Array(MAX_WAITING).fill('stored'));
    expect(most).toBe(1);
    uploader.close();
    expect(await uploader.send(body())).toBe('dropped');
    expect(fetch).toHaveBeenCalledTimes(MAX_WAITING);
  });
});
