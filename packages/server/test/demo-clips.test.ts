// The demo's clips and page snapshots (src/demo/clips.ts): made from the static shop pages that
// scripts/build-demo-pages.ts serializes with rrweb, masked like an SDK's, and replayable.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIP_AFTER_MS, CLIP_BEFORE_MS, demoClip, demoPageSnapshot, type ClipSignal } from '../src/demo/clips.ts';
import { DEMO_PAGES, demoSnapshots, SNAPSHOTS_FILE } from '../src/demo/demo-pages.ts';
import { PAGES, PROBLEMS } from '../src/simulate/scenario.ts';

const serverDir = new URL('..', import.meta.url).pathname;

interface Node { id: number; type: number; tagName?: string; textContent?: string; attributes?: Record<string, string>; childNodes?: Node[] }
const flatten = (node: Node): Node[] => [node, ...(node.childNodes ?? []).flatMap(flatten)];

describe('the demo shop pages, serialized by rrweb', () => {
  it('the committed snapshots are what the pages serialize to today', () => {
    const fresh = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-demo-pages.ts', '--stdout'], { cwd: serverDir, encoding: 'utf8', maxBuffer: 16 << 20 });
    expect(JSON.parse(fresh), 'run `npm run demo:pages -w @mallard/server` after changing a page').toEqual(JSON.parse(readFileSync(SNAPSHOTS_FILE, 'utf8')));
  }, 60_000);

  it('names a node for every element the simulator presses, on every page it has', () => {
    const { pages } = demoSnapshots();
    expect(Object.keys(pages).sort()).toEqual(Object.keys(DEMO_PAGES).sort());
    for (const [path, { node, ids }] of Object.entries(pages)) {
      const nodes = new Map(flatten(node as Node).map((n) => [n.id, n]));
      for (const { selector } of PAGES[path].elements) {
        const found = nodes.get(ids[selector]);
        expect(found, `${path} ${selector}`).toBeDefined();
        expect(selector.startsWith(found!.tagName!), `${path} ${selector} is a ${found!.tagName}`).toBe(true);
      }
    }
    // The planted problems are all on pages the demo can show.
    for (const problem of Object.values(PROBLEMS)) expect(pages[problem.page]?.ids[problem.selector], problem.selector).toBeGreaterThan(0);
  });

  it('holds no text the pages mask, no typed value and nothing marked data-mallard-block', () => {
    const json = readFileSync(SNAPSHOTS_FILE, 'utf8');
    // Planted in the pages: body copy, input values, the blocked saved-card line, an image's alt.
    for (const secret of ['Light linen', 'Total $83.00', 'Jane Example', '4242', 'jane@example.org', 'correct horse', 'SUMMER10', 'Harbour Road', 'Models in the summer']) {
      expect(json, secret).not.toContain(secret);
    }
    // What the demo site unmasks (its chrome: headings, buttons, links) reads as written.
    for (const shown of ['Place order', 'Checkout', 'Apply coupon', 'Create account']) expect(json).toContain(shown);
  });
});

describe('demo clips', () => {
  const viewport = { width: 1280, height: 800 };
  const at = Date.UTC(2026, 10, 20, 12);
  const rage: ClipSignal = { event_id: 'a'.repeat(24), signal_type: 'rage_click', element: 'button#place-order', vx: 0.5, vy: 0.84, occurred_at: at };

  it('replays the page from 10 s before the signal to 5 s after, pressing the element where the signal says', () => {
    const clip = demoClip('/checkout', viewport, [rage])!;
    expect(clip.started_at).toBe(at - CLIP_BEFORE_MS);
    expect(clip.ended_at).toBe(at + CLIP_AFTER_MS);
    expect(clip.signal_ids).toEqual([rage.event_id]);
    const [meta, full, ...rest] = clip.events;
    expect(meta).toMatchObject({ type: 4, data: { href: 'https://shop.example/checkout', width: 1280, height: 800 }, timestamp: clip.started_at });
    expect(full.type).toBe(2);
    expect(full.data.node).toEqual(demoSnapshots().pages['/checkout'].node);
    for (const e of clip.events) {
      expect(e.timestamp).toBeGreaterThanOrEqual(clip.started_at);
      expect(e.timestamp).toBeLessThanOrEqual(clip.ended_at);
    }
    expect(clip.events.map((e) => e.timestamp)).toEqual([...clip.events.map((e) => e.timestamp)].sort((a, b) => a - b));
    const clicks = rest.filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2);
    expect(clicks).toHaveLength(5);
    const button = demoSnapshots().pages['/checkout'].ids['button#place-order'];
    for (const c of clicks) expect(c.data).toMatchObject({ id: button, x: 640, y: 672 });
    expect(clicks[0].timestamp).toBeGreaterThanOrEqual(at);
    // The pointer arrives at the button before it is pressed.
    const moves = rest.filter((e) => e.type === 3 && e.data.source === 1 && e.timestamp <= clicks[0].timestamp);
    const last = (moves.at(-1)!.data.positions as { x: number; y: number }[]).at(-1);
    expect(last).toEqual({ x: 640, y: 672, id: 1, timeOffset: 0 });
  });

  it('types masked text into a form field, and covers every signal of a burst in one clip', () => {
    const loop: ClipSignal = { event_id: 'b'.repeat(24), signal_type: 'form_validation_loop', element: 'input#card-number', vx: 0.45, vy: 0.47, occurred_at: at + 2000 };
    const clip = demoClip('/checkout', viewport, [loop, rage])!;
    expect(clip.signal_ids).toEqual([rage.event_id, loop.event_id]);
    expect(clip.ended_at).toBe(loop.occurred_at + CLIP_AFTER_MS);
    const inputs = clip.events.filter((e) => e.type === 3 && e.data.source === 5);
    expect(inputs.length).toBeGreaterThan(0);
    for (const e of inputs) expect(e.data.text).toMatch(/^\*+$/);
    expect(demoClip('/checkout', viewport, [loop, rage])).toEqual(clip);
  });

  it('has nothing for a page without a static copy, or without signals', () => {
    expect(demoClip('/products/1234', viewport, [{ ...rage }])).toBeNull();
    expect(demoClip('/checkout', viewport, [])).toBeNull();
    expect(demoPageSnapshot('/blog/summer-sale', viewport, at)).toBeNull();
    expect(demoPageSnapshot('/cart', viewport, at)!.map((e) => e.type)).toEqual([4, 2]);
  });
});
