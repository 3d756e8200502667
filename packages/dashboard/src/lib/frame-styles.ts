// Lifted CSS (lib/snapshot-styles.ts) applied to a rebuilt document through the CSSOM, which the
// dashboard's CSP allows where inline styles are refused. Shared by the snapshot frame and the
// clip player; it imports nothing from rrweb, so neither chunk pulls in the other.
import { BASE_RULES, type LiftedStyles } from './snapshot-styles.ts';

/** The part of rrweb's node mirror this needs. */
interface NodeMirror { has(id: number): boolean; getNode(id: number): Node | null }

/** Applies lifted CSS to a rebuilt document: constructed sheets in document order after the base rules, inline styles by element. */
export function applyStyles(doc: Document, mirror: NodeMirror, lifted: LiftedStyles, sheets: Map<number, CSSStyleSheet>) {
  const win = doc.defaultView as (Window & typeof globalThis) | null;
  if (!win) return;
  for (const [id, css] of lifted.sheets) {
    const sheet = new win.CSSStyleSheet();
    try { sheet.replaceSync(css); } catch { continue; }
    sheets.set(id, sheet);
  }
  const base = new win.CSSStyleSheet();
  base.replaceSync(BASE_RULES);
  doc.adoptedStyleSheets = [base, ...[...sheets].filter(([id]) => mirror.has(id)).sort(([a], [b]) => a - b).map(([, s]) => s)];
  for (const [id, css] of lifted.inline) {
    const node = mirror.getNode(id) as HTMLElement | null;
    if (node && 'style' in node) node.style.cssText = css;
  }
}

