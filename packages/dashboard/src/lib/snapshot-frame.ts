// The page snapshot rebuilt for the heatmap: rrweb-snapshot's rebuild into a sandboxed iframe
// (`sandbox="allow-same-origin"` only: the dashboard reads its layout, nothing in it can run),
// its CSS applied through the CSSOM (lib/snapshot-styles.ts says why), then each element's box
// looked up by its selector. Loaded on demand (a separate chunk) by the page screen.
import { createCache, createMirror, rebuildIntoSandboxedIframe } from 'rrweb-snapshot';
import { liftStyles, emptyLifted, type SerializedNode } from './snapshot-styles.ts';
import { applyStyles } from './frame-styles.ts';
import type { Box } from '../layout/snapshot-heat.ts';

export interface RebuiltSnapshot { iframe: HTMLIFrameElement; doc: Document; boxOf(selector: string): Box | null }

/**
 * Rebuilds `event` (an rrweb full snapshot; the API types it as opaque JSON) into a new sandboxed
 * iframe inside `root`, laid out `width` x `height` CSS pixels. Throws when it has no document node.
 */
export function rebuildSnapshot(root: HTMLElement, event: unknown, size: { width: number; height: number }, title: string): RebuiltSnapshot {
  const node = (event as { data?: { node?: unknown } } | null)?.data?.node;
  if (typeof node !== 'object' || node === null) throw new Error('the snapshot has no document node');
  const lifted = emptyLifted();
  const clean = liftStyles(node as SerializedNode, lifted) as unknown as Parameters<typeof rebuildIntoSandboxedIframe>[0];
  const mirror = createMirror();
  const { iframe } = rebuildIntoSandboxedIframe(clean, {
    root, mirror, cache: createCache(), hackCss: false,
    iframeAttributes: { title, width: String(size.width), height: String(size.height), scrolling: 'no', tabindex: '-1', 'aria-hidden': 'true' },
  });
  const doc = iframe.contentDocument;
  if (!doc) throw new Error('the snapshot frame has no document');
  applyStyles(doc, mirror, lifted, new Map());
  return {
    iframe, doc,
    boxOf(selector: string) {
      let el: Element | null = null;
      try { el = doc.querySelector(selector); } catch { return null; } // a selector the browser cannot read finds nothing
      if (!el) return null;
      const r = el.getBoundingClientRect();
      const scroll = doc.scrollingElement;
      return r.width > 0 && r.height > 0 ? { x: r.left + (scroll?.scrollLeft ?? 0), y: r.top + (scroll?.scrollTop ?? 0), width: r.width, height: r.height } : null;
    },
  };
}
