// The demo shop's static pages (demo/pages/*.html), serialized with rrweb's snapshot function by
// scripts/build-demo-pages.ts into demo/pages/snapshots.json, and the clips settings the demo
// site runs with: the same defaults as any site (all text and inputs masked, media blocked),
// with the shop's headings, buttons and links unmasked, as a site would unmask its own chrome.
import { readFileSync } from 'node:fs';

/** Page path -> its file in demo/pages. Dynamic pages (/products/:id, /blog/:slug) have none. */
export const DEMO_PAGES: Record<string, string> = {
  '/': 'home.html',
  '/products': 'products.html',
  '/search': 'search.html',
  '/cart': 'cart.html',
  '/checkout': 'checkout.html',
  '/signup': 'signup.html',
  '/pricing': 'pricing.html',
  '/login': 'login.html',
};

export const DEMO_CLIPS_CONFIG = {
  enabled: true,
  unmask: ['header', 'h1', 'button', 'label', '.card strong', 'a'],
  allow_media: false,
};

/** What the SDK never records by default: media, and anything marked data-mallard-block. */
export const BLOCKED_BY_DEFAULT = 'img, video, audio, canvas, iframe, object, embed, picture, svg image, [data-mallard-block]';

/** An rrweb serialized node (rrweb-snapshot's `serializedNodeWithId`), kept opaque here. */
export type SerializedNode = { id: number; type: number; [key: string]: unknown };

export interface DemoPageSnapshot {
  /** The whole document, serialized and masked. */
  node: SerializedNode;
  /** The rrweb node id of each element the simulator presses on the page. */
  ids: Record<string, number>;
}

export interface DemoSnapshots { origin: string; pages: Record<string, DemoPageSnapshot> }

export const SNAPSHOTS_FILE = new URL('./pages/snapshots.json', import.meta.url);

let loaded: DemoSnapshots | undefined;
export function demoSnapshots(): DemoSnapshots {
  loaded ??= JSON.parse(readFileSync(SNAPSHOTS_FILE, 'utf8')) as DemoSnapshots;
  return loaded;
}
