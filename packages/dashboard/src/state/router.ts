// Hash routes (#/issues/<id>?status=open): the server serves one entry page, and nothing
// secret ever goes in the address (ids and filters only).
import { signal } from '@preact/signals';

export interface Route { path: string[]; query: URLSearchParams }

export function parseHash(hash: string): Route {
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export const route = signal<Route>(parseHash(location.hash));
addEventListener('hashchange', () => { route.value = parseHash(location.hash); });

/** A link target: href('issues', id) or href('issues', { status: 'open' }). */
export function href(...parts: (string | Record<string, string | number | undefined | null>)[]): string {
  const segments: string[] = [];
  const params = new URLSearchParams();
  for (const part of parts) {
    if (typeof part === 'string') segments.push(encodeURIComponent(part));
    else for (const [k, v] of Object.entries(part)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const search = params.toString();
  return `#/${segments.join('/')}${search ? `?${search}` : ''}`;
}

export function navigate(target: string) {
  if (location.hash !== target) location.hash = target;
}
