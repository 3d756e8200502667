// Page patterns with `*` wildcards anywhere (`/products/*`, `/checkout*`, `/account/*/orders`):
// each `*` matches any run of characters, `/` included; everything else matches itself, case
// and all. A pattern with its `*` only at the end means what pipeline/budgets.ts matchesPattern
// (the alert rules' page_pattern) means by it; that helper delegates here.
import { invalidInput } from './errors.ts';
import { MAX_PAGE_LENGTH } from './normalize.ts';

/** What a stored page may hold, plus `*`: no whitespace, query, fragment or control characters. */
const PATTERN_CHARS = /^\/[^\s?#\u0000-\u001f\u007f]*$/;

/** The pattern checked for a request field: 400 invalid_input naming the field when it is not usable. */
export function checkPagePattern(value: string, field: string): string {
  if (!value.startsWith('/')) throw invalidInput(field, 'must be a page path starting with /');
  if (value.length > MAX_PAGE_LENGTH) throw invalidInput(field, `must be at most ${MAX_PAGE_LENGTH} characters`);
  if (!PATTERN_CHARS.test(value)) throw invalidInput(field, 'must be a path without spaces, ? or #, with * as the only wildcard');
  if (value.includes('**')) throw invalidInput(field, 'must not hold ** (one * already matches any run of characters)');
  return value;
}

export const hasWildcard = (pattern: string) => pattern.includes('*');

const compiled = new Map<string, RegExp>();

/** True when the page matches the pattern (exact when it holds no `*`). */
export function matchesPagePattern(pattern: string, page: string): boolean {
  if (!hasWildcard(pattern)) return page === pattern;
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex.test(page);
}

/**
 * The pattern as a SQL LIKE pattern (escape character `\`), a superset of what it matches on
 * either dialect (SQLite's LIKE ignores ASCII case): callers keep only the rows that
 * matchesPagePattern accepts.
 */
export function likePattern(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}
