// Bounds on what a request carries, checked without recursion. Both body parsers (the app's
// JSON parser and ingest's) refuse JSON nested deeper than MAX_JSON_DEPTH before parsing it,
// so no later walk of request data (schema validation, the idempotency hash, the MCP
// transport, ingest's NUL reviver) can meet a value deep enough to overflow the stack.
// (JSON.parse alone takes 1,000,000 levels on Node 20, 22 and 24; with a reviver it overflows
// at 20,000 on each.)
import { AppError } from '../domain/errors.ts';
import { fieldName } from '../domain/validation-error.ts';

/** The deepest nesting of arrays and objects a JSON body may have (docs/api.md); no body the API takes needs more than a few. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whether the JSON text nests arrays and objects deeper than `limit` (brackets in strings are text). */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump over the string (most of a body) to its closing quote: one after an even run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      // An unterminated string: not JSON, which the parser answers.
      if (end === -1) return false;
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** Whether the character at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let slashes = 0;
  for (let j = at - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++;
  return slashes % 2 === 1;
}

/** The refusal of a JSON body nested too deep, or null when it is within the limit. */
export function depthError(text: string): AppError | null {
  if (!nestedDeeperThan(text, MAX_JSON_DEPTH)) return null;
  return new AppError('invalid_input', `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, {
    field: 'body', reason: `nested more than ${MAX_JSON_DEPTH} levels deep`,
  });
}

/** The path (`a.b[2]`, '' for the value itself) of the first string or key holding a NUL character. */
export function firstNul(value: unknown): string | undefined {
  // Depth first in document order (a key before its value), on an explicit stack rather than the call stack.
  const pending: { item: unknown; path: string; badKey?: boolean }[] = [{ item: value, path: '' }];
  while (pending.length > 0) {
    const { item, path, badKey } = pending.pop()!;
    if (badKey) return path;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push({ item: item[i], path: `${path}[${i}]` });
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        pending.push({ item: child, path: path ? `${path}.${key}` : key, badKey: key.includes('\u0000') });
      }
    }
  }
  return undefined;
}

/** A NUL character anywhere in `value`, refused naming where; null when there is none. */
export function nulError(value: unknown): AppError | null {
  const at = firstNul(value);
  if (at === undefined) return null;
  const field = fieldName(at || 'body');
  return new AppError('invalid_input', `${field}: must not contain a NUL character`, { field, reason: 'contains a NUL character' });
}
