// Names and URLs as people type them, checked and trimmed the same way everywhere
// (sites, keys, alert rules, deploys, the org at bootstrap).
import { invalidInput } from './errors.ts';

export function cleanName(value: string, field = 'name'): string {
  const name = value.trim();
  if (!name) throw invalidInput(field, 'must not be blank');
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalidInput(field, 'must not contain control characters');
  return name;
}

export function cleanHttpUrl(value: string, field = 'url'): string {
  let parsed: URL;
  try { parsed = new URL(value.trim()); } catch { throw invalidInput(field, 'must be a valid http or https URL'); }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidInput(field, 'must be a valid http or https URL');
  if (parsed.username || parsed.password) throw invalidInput(field, 'must not contain credentials');
  return value.trim();
}
