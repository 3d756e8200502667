// rrweb's recorded pages carry their CSS as inline styles (`<style>` text, `style=""`), which
// the dashboard's CSP (`style-src 'self'`, no 'unsafe-inline') refuses to apply, and a sandboxed
// about:blank frame inherits that CSP. So the CSS is lifted out of the recording before it is
// rebuilt, and applied afterwards through the CSSOM (constructed style sheets and
// `element.style`), which CSP does not govern. Scripts and `on…` attributes are dropped too
// (the frame runs no script anyway; this keeps them out of the rebuilt page altogether).
// Pure: serialized nodes in, serialized nodes and the lifted CSS out.

/** The parts of rrweb's serialized node this reads (types 0 document, 2 element, 3 text). */
export interface SerializedNode {
  type: number; id: number; tagName?: string; attributes?: Record<string, unknown>;
  childNodes?: SerializedNode[]; textContent?: string; isStyle?: boolean; [key: string]: unknown;
}

/** What was lifted: style sheets by the id of the element that held them (document order), inline styles by element id. */
export interface LiftedStyles { sheets: Map<number, string>; inline: Map<number, string> }

const ELEMENT = 2;
const SPLIT = '/* rr_split */';
/** Inline event handlers, and attributes that would fetch or navigate on their own. */
const UNSAFE_ATTRIBUTE = /^on|^srcdoc$|^formaction$/i;

export const emptyLifted = (): LiftedStyles => ({ sheets: new Map(), inline: new Map() });

/** A copy of `node` with its CSS lifted into `into`, scripts and handlers removed. */
export function liftStyles(node: SerializedNode, into: LiftedStyles = emptyLifted()): SerializedNode {
  if (node.type !== ELEMENT) {
    return node.childNodes ? { ...node, childNodes: liftChildren(node.childNodes, into) } : { ...node };
  }
  const tag = String(node.tagName ?? '').toLowerCase();
  const attributes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node.attributes ?? {})) if (!UNSAFE_ATTRIBUTE.test(name)) attributes[name] = value;
  if (typeof attributes.style === 'string') {
    if (attributes.style.trim()) into.inline.set(node.id, attributes.style);
    delete attributes.style;
  }
  const cssText = typeof attributes._cssText === 'string' ? attributes._cssText : null;
  if (tag === 'style' || (tag === 'link' && cssText !== null)) {
    const text = cssText ?? (node.childNodes ?? []).map((c) => c.textContent ?? '').join('');
    if (text.trim()) into.sheets.set(node.id, text.split(SPLIT).join(''));
    // An inert <template> holds the place (later mutations may name its id): even an empty
    // <style> is refused by the CSP, and a <link> would fetch its address.
    return { ...node, tagName: 'template', attributes: {}, childNodes: [] };
  }
  return { ...node, attributes, childNodes: node.childNodes ? liftChildren(node.childNodes, into) : node.childNodes };
}

function liftChildren(children: SerializedNode[], into: LiftedStyles): SerializedNode[] {
  return children.filter((c) => !(c.type === ELEMENT && String(c.tagName).toLowerCase() === 'script')).map((c) => liftStyles(c, into));
}

/** rrweb event types and the incremental source of DOM mutations. */
const FULL_SNAPSHOT = 2;
const INCREMENTAL = 3;
const MUTATION = 0;

export interface RecordedEvent { type: number; timestamp: number; data?: unknown; [key: string]: unknown }

/**
 * A clip's events with the CSS lifted out of every full snapshot and every added node, and
 * string `style` attributes taken out of attribute mutations: `styles` says, for each event
 * returned, the inline styles and sheets to apply once the player has applied that event.
 */
export function liftEvents(events: readonly RecordedEvent[]): { events: RecordedEvent[]; styles: Map<RecordedEvent, LiftedStyles> } {
  const styles = new Map<RecordedEvent, LiftedStyles>();
  const out = events.map((e) => {
    const data = e.data && typeof e.data === 'object' ? e.data as Record<string, unknown> : null;
    if (!data) return e;
    const lifted = emptyLifted();
    let next: RecordedEvent = e;
    if (e.type === FULL_SNAPSHOT && data.node) {
      next = { ...e, data: { ...data, node: liftStyles(data.node as SerializedNode, lifted) } };
    } else if (e.type === INCREMENTAL && data.source === MUTATION) {
      const adds = Array.isArray(data.adds) ? data.adds.map((a: { node: SerializedNode }) => ({ ...a, node: liftStyles(a.node, lifted) })) : data.adds;
      const attributes = Array.isArray(data.attributes) ? data.attributes.map((m: { id: number; attributes: Record<string, unknown> }) => {
        const rest: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(m.attributes ?? {})) {
          if (name === 'style' && typeof value === 'string') lifted.inline.set(m.id, value);
          else if (!UNSAFE_ATTRIBUTE.test(name)) rest[name] = value;
        }
        return { ...m, attributes: rest };
      }) : data.attributes;
      next = { ...e, data: { ...data, adds, attributes } };
    }
    if (lifted.inline.size > 0 || lifted.sheets.size > 0) styles.set(next, lifted);
    return next;
  });
  return { events: out, styles };
}

/** Rules every rebuilt page gets: what rrweb blocked shows as a grey box, and no `<noscript>` text (the frame runs no script, so it would show). */
export const BASE_RULES = 'noscript { display: none !important; } .rr-block { background: #e5e7eb; }';
