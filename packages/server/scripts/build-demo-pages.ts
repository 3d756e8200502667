// Serializes the demo shop's static pages (src/demo/pages/*.html) with rrweb's own snapshot
// function under happy-dom, masked as the demo site's clips settings say (src/demo/demo-pages.ts),
// into src/demo/pages/snapshots.json: the full snapshots the demo's clips and page snapshots are
// made of (src/demo/clips.ts). `npm run demo:pages -w @mallard/server` after a page changes;
// test/demo-clips.test.ts fails when the committed file no longer matches the pages.
//
// rrweb reads DOM prototypes from globals, which is why this is a script of its own and not
// something the server does while it runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { Window } from 'happy-dom';
import { createMirror, snapshot } from 'rrweb-snapshot';
import { BLOCKED_BY_DEFAULT, DEMO_CLIPS_CONFIG, DEMO_PAGES, SNAPSHOTS_FILE, type DemoSnapshots } from '../src/demo/demo-pages.ts';
import { PAGES, SITE_ORIGIN } from '../src/simulate/scenario.ts';

const pagesDir = new URL('../src/demo/pages/', import.meta.url);
const css = readFileSync(new URL('shop.css', pagesDir), 'utf8');

export function serializePages(): DemoSnapshots {
  const pages: DemoSnapshots['pages'] = {};
  const unmasked = DEMO_CLIPS_CONFIG.unmask.join(', ');
  for (const [path, file] of Object.entries(DEMO_PAGES)) {
    const html = readFileSync(new URL(file, pagesDir), 'utf8').replace('<link rel="stylesheet" href="shop.css">', `<style>${css}</style>`);
    const window = new Window({ url: `${SITE_ORIGIN}${path}`, width: 1280, height: 800 });
    // The DOM classes rrweb checks against (Node, HTMLFormElement, ...) and `document`, as globals.
    const globals = globalThis as Record<string, unknown>;
    const dom = window as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(window)) if (/^[A-Z]/.test(name) && typeof dom[name] === 'function') globals[name] = dom[name];
    globals.document = window.document;
    // rrweb reads text through Node.prototype's textContent getter, which in happy-dom answers
    // only for elements (text nodes have their own on CharacterData): answer for text too.
    const nodeProto = (dom.Node as { prototype: object }).prototype;
    const textContent = Object.getOwnPropertyDescriptor(nodeProto, 'textContent')!;
    Object.defineProperty(nodeProto, 'textContent', {
      ...textContent,
      get(this: { nodeType: number; data: string }) { return this.nodeType === 3 || this.nodeType === 4 || this.nodeType === 8 ? this.data : textContent.get!.call(this); },
    });
    window.document.write(html);
    const mirror = createMirror();
    const node = snapshot(window.document as unknown as Document, {
      mirror,
      maskTextSelector: '*',
      maskTextFn: (text: string, element: HTMLElement | null) => (element?.closest(unmasked) ? text : text.replace(/\S/g, '*')),
      maskAllInputs: true,
      blockSelector: BLOCKED_BY_DEFAULT,
      inlineStylesheet: true,
    });
    if (!node) throw new Error(`${file}: rrweb could not serialize it`);
    const ids: Record<string, number> = {};
    for (const { selector } of PAGES[path].elements) {
      const element = window.document.querySelector(selector);
      if (!element) throw new Error(`${file}: no element matches ${selector}`);
      ids[selector] = mirror.getId(element as unknown as Node);
    }
    pages[path] = { node: node as unknown as DemoPageSnapshot['node'], ids };
    void window.happyDOM.close();
  }
  return { origin: SITE_ORIGIN, pages };
}
type DemoPageSnapshot = DemoSnapshots['pages'][string];

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const json = `${JSON.stringify(serializePages())}\n`;
  if (process.argv.includes('--stdout')) process.stdout.write(json);
  else writeFileSync(SNAPSHOTS_FILE, json);
}
