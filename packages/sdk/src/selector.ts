// Stable, short CSS selectors that never carry user data: an id, then a test-id attribute,
// then tag and meaningful classes, then :nth-of-type under the nearest identifiable parent.
import { redact } from './redact.ts';

const TEST_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'];
const MAX_DEPTH = 5;
export const SELECTOR_MAX = 200;

/** Generated ids and classes change between builds or renders: hashes, counters, framework prefixes. */
function isStable(token: string): boolean {
  return /^[A-Za-z][\w-]{0,40}$/.test(token)
    && !/\d{3,}|(?=[a-f]*\d)[0-9a-f]{6,}/i.test(token)
    && !/^(?:css|sc|jsx|ember|svelte|emotion|styled|ng)-/i.test(token)
    && !/^(?:is|has)-|^(?:active|hover|focus|focused|selected|open|disabled|visible|hidden)$/.test(token)
    && redact(token) === token;
}

const escape = (value: string) => value.replace(/["\\]/g, '\\$&');

function unique(doc: Document, selector: string, el: Element): boolean {
  try {
    const found = doc.querySelectorAll(selector);
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
}

/** The element alone: #id, [data-testid="..."], or tag.class.class. */
function ownPart(el: Element): { part: string; anchored: boolean } {
  if (el.id && isStable(el.id)) return { part: `#${el.id}`, anchored: true };
  for (const attribute of TEST_ATTRIBUTES) {
    const value = el.getAttribute(attribute);
    if (value && value.length <= 64 && redact(value) === value) return { part: `[${attribute}="${escape(value)}"]`, anchored: true };
  }
  const classes = [...el.classList].filter(isStable).slice(0, 2);
  return { part: el.tagName.toLowerCase() + classes.map((c) => `.${c}`).join(''), anchored: false };
}

function nthOfType(el: Element): string {
  const parent = el.parentElement;
  if (!parent) return '';
  const same = [...parent.children].filter((c) => c.tagName === el.tagName);
  return same.length > 1 ? `:nth-of-type(${same.indexOf(el) + 1})` : '';
}

export function selectorOf(el: Element): string {
  const doc = el.ownerDocument;
  const own = ownPart(el);
  if (unique(doc, own.part, el)) return own.part;
  const parts: string[] = [];
  let current: Element | null = el;
  for (let depth = 0; current && current !== doc.documentElement && depth < MAX_DEPTH; depth++) {
    const { part, anchored } = ownPart(current);
    parts.unshift(anchored && unique(doc, part, current) ? part : part + nthOfType(current));
    const selector = parts.join(' > ');
    if (unique(doc, selector, el)) return selector.slice(0, SELECTOR_MAX);
    if (anchored && unique(doc, part, current)) break;
    current = current.parentElement;
  }
  return parts.join(' > ').slice(0, SELECTOR_MAX);
}
