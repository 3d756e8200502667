// What the recorder may see, decided in the browser before anything leaves (Sentry replay's
// defaults): every text masked, every input masked, media and frames blocked, and
// `data-mallard-block` subtrees never recorded whatever the config says. The site's `unmask`
// selectors let chosen text and input values (never passwords or file names) through; `allow_media` lets
// images, video and audio through. rrweb masks text nodes and input values; the attributes that
// carry text (title, alt, placeholder, aria-label, a button's value...) are masked here, in
// every event, and links lose their query string and fragment (tokens live there).
import type { ClipsConfig } from './host.ts';

export const BLOCK = '[data-mallard-block]';
const FRAMES = 'iframe,frame,object,embed,canvas';
const MEDIA = 'img,picture,video,audio,svg image';
/** Attributes whose value is text a person wrote or reads. */
const TEXT_ATTRIBUTES = new Set(['title', 'alt', 'placeholder', 'value', 'label', 'content', 'summary', 'abbr',
  'aria-label', 'aria-description', 'aria-valuetext', 'aria-placeholder', 'aria-roledescription']);
const URL_ATTRIBUTES = new Set(['href', 'action', 'formaction']);

/** Masks text as rrweb does: every non-space character becomes `*`. */
export const mask = (text: string) => text.replace(/\S/g, '*');

/** Each selector that the browser can parse (a bad one would throw on every match). */
export function validSelectors(selectors: unknown, doc: Document): string[] {
  if (!Array.isArray(selectors)) return [];
  return selectors.filter((s): s is string => {
    if (typeof s !== 'string' || !s.trim()) return false;
    // An empty fragment: the syntax is checked without a walk over the page.
    try { doc.createDocumentFragment().querySelector(s); return true; } catch { return false; }
  });
}

export interface Privacy {
  blockSelector: string;
  /** Whether `el` (or an ancestor) was unmasked by the site. */
  unmasked(el: Element | null | undefined): boolean;
  maskTextFn(text: string, el: HTMLElement | null): string;
  maskInputFn(text: string, el: HTMLElement): string;
}

export function privacy(config: ClipsConfig, doc: Document): Privacy {
  const unmask = validSelectors(config.unmask, doc).join(',');
  const unmasked = (el: Element | null | undefined) => {
    if (!unmask || !el) return false;
    try { return !!el.closest(unmask) && !el.closest(BLOCK); } catch { return false; }
  };
  return {
    blockSelector: [BLOCK, FRAMES, ...(config.allow_media === true ? [] : [MEDIA])].join(','),
    unmasked,
    maskTextFn: (text, el) => (unmasked(el) ? text : mask(text)),
    maskInputFn: (text, el) => (inputShown(el, unmasked) ? text : '*'.repeat(text.length)),
  };
}

/** Whether an input's value may be recorded: under an unmask selector, and never a password or a file name. */
function inputShown(el: Element | null, unmasked: (el: Element | null) => boolean): boolean {
  const type = (el as HTMLInputElement | null)?.type;
  return unmasked(el) && type !== 'password' && type !== 'file';
}

/**
 * origin + path of a URL (relative URLs keep their path); an address link (mailto:, tel:,
 * sms:) keeps only its scheme: the rest is a person's address or number.
 */
export function stripQuery(url: string): string {
  const scheme = /^\s*(mailto|tel|sms|callto):/i.exec(url);
  return scheme ? `${scheme[1]}:` : url.replace(/[?#][\s\S]*$/, '');
}

interface SerializedNode { id?: number; type?: number; tagName?: string; attributes?: Record<string, unknown>; childNodes?: SerializedNode[] }

function scrubAttributes(tag: string | undefined, attributes: Record<string, unknown>, keepText: boolean) {
  // Runs over every node of every full snapshot: a plain loop, no intermediate arrays.
  for (const name in attributes) {
    const value = attributes[name];
    if (typeof value !== 'string') continue;
    const lower = name.toLowerCase();
    if (TEXT_ATTRIBUTES.has(lower) && !keepText) attributes[name] = mask(value);
    // Stylesheet links keep theirs (rrweb inlines their CSS anyway).
    else if (URL_ATTRIBUTES.has(lower) && tag !== 'link') attributes[name] = stripQuery(value);
  }
}

/**
 * Masks the text attributes of every node an event carries (a full snapshot's tree, a
 * mutation's added nodes and changed attributes) and strips the page URL's query. `nodeOf`
 * finds the live element of a serialized node's id, to ask whether it was unmasked. Changes
 * the event in place: it is fresh from rrweb and goes nowhere else.
 */
export function scrubEvent(event: { type: number; data: unknown }, p: Pick<Privacy, 'unmasked'>, nodeOf: (id: number) => Node | null) {
  const data = event.data as Record<string, any>;
  if (!data) return;
  const keep = (id: number | undefined) => id !== undefined && p.unmasked(nodeOf(id) as Element | null);
  const walk = (node: SerializedNode | undefined) => {
    if (!node) return;
    if (node.attributes) scrubAttributes(node.tagName, node.attributes, keep(node.id));
    node.childNodes?.forEach(walk);
  };
  if (event.type === 4 && typeof data.href === 'string') data.href = stripQuery(data.href);
  if (event.type === 2) walk(data.node);
  // IncrementalSnapshot with source Input (5): rrweb masks the input types it knows, not a
  // file input's `C:\fakepath\<file name>`; every value is masked here again (idempotent).
  if (event.type === 3 && data.source === 5 && typeof data.text === 'string') {
    if (!inputShown(nodeOf(data.id) as Element | null, p.unmasked)) data.text = '*'.repeat(data.text.length);
  }
  // IncrementalSnapshot with source Mutation (0).
  if (event.type === 3 && data.source === 0) {
    (data.adds as { node: SerializedNode }[] | undefined)?.forEach((add) => walk(add.node));
    (data.attributes as { id: number; attributes: Record<string, unknown> }[] | undefined)?.forEach((change) => {
      const el = nodeOf(change.id) as Element | null;
      scrubAttributes(el?.tagName?.toLowerCase(), change.attributes, keep(change.id));
    });
  }
}
